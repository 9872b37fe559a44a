import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "../errors.ts";
import type { CallerGuard } from "./callerGuard.ts";
import { sendApiError } from "./errorReplies.ts";
import { REFUSES_METHOD } from "./methodRoutes.ts";

/**
 * The provider's paths are authorized before they are routed (DESIGN.md, "App authorization"):
 * a call to a path this service does not carry, or with a method the path does not take, is
 * answered 404 or 405 only once its credentials passed the rules a carried route applies. So an
 * app calling `/sms/2/text/advanced` with a disabled, expired or unknown key, from an address
 * outside `allowedIPs`, or with a TFA key, gets the refusal it will get from the provider, not
 * a 404 that says nothing about its key.
 *
 * The service's own paths (management, its health, metrics and contract) are not the provider's
 * and keep their own rules.
 */

/**
 * The service's own paths, spelled once for the gate and for /openapi.json (x-unknown-path names
 * them): one that ends in "/" is every path under it, any other that path only.
 */
export const SERVICE_PATHS = ["/settings/", "/local/", "/openapi.json", "/metrics"] as const;
const SERVICE_PATH_PREFIXES = SERVICE_PATHS.filter((path) => path.endsWith("/"));
const SERVICE_EXACT_PATHS = new Set<string>(SERVICE_PATHS.filter((path) => !path.endsWith("/")));

/**
 * Whether a request path (query included or not) is one of the service's own rather than the
 * provider's. One trailing slash names the same path, as the router reads it (app.ts).
 * @internal Exported for tests.
 */
export function isServicePath(url: string): boolean {
  const query = url.indexOf("?");
  const path = query === -1 ? url : url.slice(0, query);
  const exact = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return SERVICE_EXACT_PATHS.has(exact) || SERVICE_PATH_PREFIXES.some((prefix) => path.startsWith(prefix));
}

/**
 * The provider path's caller is checked as for a route no TFA key may call: a TFA key may call
 * exactly seven methods, all carried here. Refusals are thrown (synchronously for a key found
 * in the authorization cache); a call that passes returns nothing, and counts as the key's use.
 */
function authorizeProviderPath(requireCaller: CallerGuard, request: FastifyRequest): void | Promise<void> {
  const caller = requireCaller(request, { tfaMethod: false });
  if (caller instanceof Promise) return caller.then(() => undefined);
}

/** Sends what the gate refused with; anything else goes on to `failed`. */
function refusing(reply: FastifyReply, failed: (error: Error) => void) {
  return (error: unknown) => {
    if (error instanceof ApiError) sendApiError(reply, error);
    else failed(error as Error);
  };
}

/**
 * Runs the gate, then `passed`; a refusal is answered here. The one place both the hook below
 * and the router's own refusals (app.ts' frameworkErrors, which no hook hears) go through.
 */
export function gated(
  requireCaller: CallerGuard,
  request: FastifyRequest,
  reply: FastifyReply,
  passed: () => void,
  failed: (error: Error) => void,
): void {
  if (isServicePath(request.url)) {
    passed();
    return;
  }
  const refuse = refusing(reply, failed);
  let checked: void | Promise<void>;
  try {
    checked = authorizeProviderPath(requireCaller, request);
  } catch (error) {
    refuse(error);
    return;
  }
  if (checked instanceof Promise) checked.then(passed, refuse);
  else passed();
}

/**
 * Authorizes, as the request arrives (before its body is read, so no body decides the answer),
 * every request no route of the path's method takes: an unknown path, or a method the path
 * does not take. Carried routes authorize on their own, with their own rules.
 */
export function gateProviderPaths(app: FastifyInstance, requireCaller: CallerGuard): void {
  app.addHook("onRequest", (request, reply, done) => {
    if (!request.is404 && request.routeOptions.config[REFUSES_METHOD] !== true) return done();
    gated(requireCaller, request, reply, done, done);
  });
}
