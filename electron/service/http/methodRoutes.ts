import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HTTPMethods,
  LogLevel,
  preValidationHookHandler,
  RouteHandlerMethod,
} from "fastify";
import { ApiError } from "../errors.ts";
import { sendApiError, toApiError } from "./errorReplies.ts";
import { zodValidatorCompiler } from "./requestValidation.ts";
import { type Before, type DocumentedRoute, OPTIONAL_BODY, plainJsonSerializer } from "./routeSchemas.ts";

/**
 * A route config flag: the route only answers 405 for the methods its path does not take. A
 * provider path's caller is authorized before that 405 (providerPathGate.ts).
 */
export const REFUSES_METHOD = "refusesMethod";

declare module "fastify" {
  interface FastifyContextConfig {
    [REFUSES_METHOD]?: boolean;
  }
}

/** Where a route's `before` leaves what it resolved for the handler (a request decorator). */
const RESOLVED = "keydeskResolved";
type Resolving = FastifyRequest & { [RESOLVED]: unknown };

/**
 * Expected refusals (ApiError) are answered right here: sending them through Fastify's
 * rejection and error-handler path cost a third of a refused request. Anything else still
 * goes to the app's error handler.
 */
function answeringApiErrors(handler: DocumentedRoute["handler"]): RouteHandlerMethod {
  return async (request, reply) => {
    // A part that failed its declared schema (requestValidation.ts made the ApiError it is refused with).
    const invalid = request.validationError;
    if (invalid) {
      // Not an ApiError: a schema that threw (a bug), answered 500 and logged.
      if (!(invalid instanceof ApiError)) request.log.error({ err: invalid }, "a request schema failed");
      return sendApiError(reply, toApiError(invalid));
    }
    try {
      return await handler(request as never, reply as never, (request as Resolving)[RESOLVED]);
    } catch (error) {
      if (error instanceof ApiError) return sendApiError(reply, error);
      throw error;
    }
  };
}

/**
 * Runs a route's `before` ahead of validation (preValidation): what it resolves waits for the
 * handler, what it refuses with is answered right here (as answeringApiErrors does). A `before`
 * that answers synchronously (an API key found in the authorization cache) takes no promise.
 */
function resolving(before: Before<unknown>): preValidationHookHandler {
  return (request, reply, done) => {
    const refuse = (error: unknown) => {
      if (error instanceof ApiError) sendApiError(reply, error);
      else done(error as Error);
    };
    const keep = (value: unknown) => {
      (request as Resolving)[RESOLVED] = value;
      done();
    };
    let resolved: unknown;
    try {
      resolved = before(request);
    } catch (error) {
      refuse(error);
      return;
    }
    if (resolved instanceof Promise) resolved.then(keep, refuse);
    else keep(resolved);
  };
}

/**
 * Registers the handlers of one path and answers every other method the server knows with 405
 * and an `Allow` header, so a client sending PATCH learns it should send PUT instead of a bare
 * 404. HEAD is answered wherever GET is. The 405 is given as the request arrives, before its
 * body is read: whatever the body (none, not JSON, too large), the answer is the same 405.
 * `options.logLevel` applies to the path's routes (a path probed every few seconds logs only trouble).
 * A method given as a DocumentedRoute declares its contract, which /openapi.json is generated from.
 */
export function routePath(
  app: FastifyInstance,
  url: string,
  handlers: Partial<Record<"get" | "post" | "put" | "delete", RouteHandlerMethod | DocumentedRoute>>,
  options: { logLevel?: LogLevel } = {},
): void {
  const entries = Object.entries(handlers) as [string, RouteHandlerMethod | DocumentedRoute][];
  if (!app.hasRequestDecorator(RESOLVED)) app.decorateRequest(RESOLVED, null);
  const allowed = entries.map(([method]) => method.toUpperCase());
  if (allowed.includes("GET")) allowed.push("HEAD");
  for (const [method, route] of entries) {
    const { schema, handler, before, fieldNames }: Partial<DocumentedRoute> =
      typeof route === "function" ? { handler: route as DocumentedRoute["handler"] } : route;
    app.route({
      method: method.toUpperCase() as HTTPMethods,
      url,
      handler: answeringApiErrors(handler as DocumentedRoute["handler"]),
      ...(before && { preValidation: resolving(before) }),
      // The schema is the route's contract and its validation (requestValidation.ts); answers
      // are serialized as they always were.
      ...(schema && {
        schema,
        validatorCompiler: zodValidatorCompiler({
          ...(fieldNames && { fieldNames }),
          optionalBody: Object.hasOwn(schema, Object.keys(OPTIONAL_BODY)[0] as string),
        }),
        serializerCompiler: plainJsonSerializer,
        // Refused by the handler's wrapper, in the service's error shape (not Fastify's error path).
        attachValidation: true,
      }),
      ...options,
    });
  }
  const allowHeader = allowed.join(", ");
  const refuse = async (request: FastifyRequest, reply: FastifyReply) =>
    sendApiError(
      reply,
      new ApiError(
        "METHOD_NOT_ALLOWED",
        `${request.method} is not allowed here; use ${allowHeader}`,
        undefined,
        {
          allow: allowHeader,
        },
      ),
    );
  app.route({
    method: app.supportedMethods.filter((method) => !allowed.includes(method)) as HTTPMethods[],
    url,
    // A provider path's caller is authorized before this 405 (providerPathGate.ts).
    config: { [REFUSES_METHOD]: true },
    onRequest: refuse,
    handler: refuse,
    ...options,
  });
}
