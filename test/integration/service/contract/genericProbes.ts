import assert from "node:assert/strict";
import {
  OPERATION_METHODS,
  type OpenApiDocument,
  type OperationObject,
} from "../../../harness/openApiConformance.ts";
import { OWNER, UNKNOWN_ID } from "./contractWorld.ts";
import { type Prober, wrongPassword } from "./prober.ts";

/**
 * Probes every documented operation gets whatever it does: refusals that come before any
 * operation-specific work (credentials, throttling, the body's size, type and syntax), 405 for the
 * methods each path lacks, HEAD wherever GET is, and the answers to paths that are not routes.
 */

export interface Operation {
  method: string;
  template: string;
  operation: OperationObject & { security?: Record<string, string[]>[] };
}

export function operationsOf(doc: OpenApiDocument): Operation[] {
  return Object.entries(doc.paths).flatMap(([template, item]) =>
    Object.entries(item)
      .filter(([method]) => OPERATION_METHODS.includes(method))
      .map(([method, operation]) => ({
        method: method.toUpperCase(),
        template,
        operation: operation as Operation["operation"],
      })),
  );
}

/** The concrete path of a template, with the world's real ids (or `values`) for its parameters. */
export function concretePath(prober: Prober, template: string, values: Record<string, string> = {}): string {
  const { world } = prober;
  const defaults: Record<string, string> = {
    accountKey: "_",
    key: world.managed.key,
    version: "2",
    appId: world.appId,
    msgId: world.msgId,
    pinId: UNKNOWN_ID,
    linkId: String(world.linkId),
    entryId: "999999",
  };
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name] ?? defaults[name];
    assert.ok(value, `no value for path parameter ${name}; add one to concretePath`);
    return value;
  });
}

const schemesOf = (operation: Operation["operation"]) =>
  (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));

/** 401 without credentials; 403 for an API key where only Basic is taken, or a disabled key. */
export async function probeCredentials(prober: Prober, operations: Operation[]): Promise<void> {
  for (const { method, template, operation } of operations) {
    const schemes = schemesOf(operation);
    if (schemes.length === 0) continue;
    const path = concretePath(prober, template);
    await prober.probe(401, { method, path, authorization: "" });
    await prober.probe(401, { method, path, authorization: "Bearer something" });
    // Ending an IBSSO session takes its token only: any other credentials are its 401, never a 403.
    if (!operation.responses?.["403"]) continue;
    const forbidden = schemes.includes("app") ? prober.world.disabledKey : prober.world.allKey;
    await prober.probe(403, { method, path, authorization: forbidden });
  }
}

/** Every method but GET has its body read before the operation runs: too large, not JSON, broken. */
export async function probeBodies(prober: Prober, operations: Operation[]): Promise<void> {
  for (const { method, template } of operations) {
    if (method === "GET") continue;
    const path = concretePath(prober, template);
    const json = { "content-type": "application/json" };
    await prober.probe(413, {
      method,
      path,
      rawBody: JSON.stringify({ x: "x".repeat(70_000) }),
      headers: json,
    });
    await prober.probe(415, { method, path, rawBody: "name=x", headers: { "content-type": "text/plain" } });
    await prober.probe(400, { method, path, rawBody: '{"name":', headers: json });
  }
}

/**
 * Each method a documented path lacks: 405 naming the documented ones in Allow, also when a body
 * comes with it that would be refused if it were read (it is not: the method is refused first).
 */
export async function probeMethods(prober: Prober, doc: OpenApiDocument): Promise<void> {
  const broken = { rawBody: '{"broken": ', headers: { "content-type": "application/json" } };
  for (const [template, item] of Object.entries(doc.paths)) {
    const path = concretePath(prober, template);
    const documented = Object.keys(item)
      .filter((key) => OPERATION_METHODS.includes(key))
      .map((key) => key.toUpperCase());
    const lacking = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"].filter(
      (method) => !documented.includes(method) && !(method === "HEAD" && documented.includes("GET")),
    );
    for (const method of lacking) {
      const bodyless = ["GET", "HEAD", "TRACE"].includes(method);
      const res = await prober.probe(405, { method, path, ...(bodyless ? {} : broken) });
      const allow = String(res.headers.allow).split(", ");
      assert.deepEqual(
        allow.filter((each) => each !== "HEAD").sort(),
        documented.sort(),
        `Allow of ${template}`,
      );
      assert.equal(allow.includes("HEAD"), documented.includes("GET"), `HEAD in Allow of ${template}`);
    }
  }
}

/**
 * 429 for every operation with credentials: an address that has used up its password attempts is
 * refused before its credentials are checked. The attempts come back one per few seconds, so an
 * answer of 401 (an attempt came back) is followed by more tries, which end in the 429.
 */
export async function probeThrottle(prober: Prober, operations: Operation[]): Promise<void> {
  const localAddress = "127.0.0.77";
  const wrongLogin = { username: OWNER, password: "not the password" };
  // One of the attempts is a session's login (its 401): a wrong password anywhere else in the
  // suite would take an attempt from the address these ten need.
  await prober.probe(401, {
    method: "POST",
    path: "/auth/1/session",
    authorization: "",
    body: wrongLogin,
    localAddress,
  });
  for (let attempt = 1; attempt < 10; attempt++) {
    await prober.probe(401, { path: "/local/1/accounts", authorization: wrongPassword(), localAddress });
  }
  const throttled = async (method: string, path: string, body?: unknown) => {
    // A session's login takes the credentials in its body (and no Authorization header).
    const req =
      body === undefined
        ? { method, path, authorization: wrongPassword(), localAddress }
        : { method, path, authorization: "", body, localAddress };
    // On a slow machine a password check can outlast the refill, so more than one attempt may come back.
    let answer = await prober.probe([429, 401], req);
    for (let retry = 1; answer.status === 401 && retry < 4; retry++)
      answer = await prober.probe([429, 401], req);
    if (answer.status === 401) await prober.probe(429, req);
  };
  for (const { method, template, operation } of operations) {
    // Ending an IBSSO session checks no password: nothing to throttle (it documents no 429).
    if (schemesOf(operation).length === 0 || !operation.responses?.["429"]) continue;
    await throttled(method, concretePath(prober, template));
  }
  await throttled("POST", "/auth/1/session", wrongLogin);
  // A provider path checks its caller before its 404 or 405 (x-unknown-path, x-method-not-allowed).
  await throttled("POST", UNCARRIED_PROVIDER_PATH);
  await throttled("PATCH", "/2fa/2/applications");
}

/** A provider path the service does not simulate. */
const UNCARRIED_PROVIDER_PATH = "/sms/2/text/advanced";

/** HEAD wherever GET is: the GET's answer without its body. */
export async function probeHeads(
  prober: Prober,
  operations: Operation[],
  values: Record<string, string>,
  queries: Record<string, string>,
): Promise<void> {
  for (const { method, template } of operations) {
    if (method !== "GET") continue;
    const path = `${concretePath(prober, template, values)}${queries[template] ?? ""}`;
    await prober.probe(200, { method: "HEAD", path });
  }
}

/** Paths that are no route: 404, or 400 when the path is not valid percent-encoding; a provider path's refusals first. */
export async function probeUnknownPaths(prober: Prober): Promise<void> {
  for (const path of ["/no/such/route", "/settings/1/accounts/_/api-keys/ABC/extra", "/2fa/3/pin", "/"])
    await prober.probe(404, { path });
  await prober.probe(404, { method: "POST", path: "/local/1/nothing", body: {} });
  await prober.probe(400, { path: "/local/1/pins%" });
  // A provider path (neither /settings/ nor /local/) is authorized before it is routed.
  for (const [method, path] of [
    ["POST", UNCARRIED_PROVIDER_PATH],
    ["PATCH", "/2fa/2/applications"],
  ] as const) {
    await prober.probe(401, { method, path, authorization: "" });
    await prober.probe(403, { method, path, authorization: prober.world.disabledKey });
  }
  await prober.probe(404, {
    method: "POST",
    path: UNCARRIED_PROVIDER_PATH,
    authorization: prober.world.allKey,
  });
}
