import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import type { FastifyInstance, HTTPMethods } from "fastify";
import { addAccount } from "../../../electron/service/accountAdmin.ts";
import { type DataDir, openDataDir } from "../../../electron/service/dataDir.ts";
import { buildHttpApp } from "../../../electron/service/http/app.ts";
import { isServicePath } from "../../../electron/service/http/providerPathGate.ts";
import { attachSync } from "../../../electron/sync/attachSync.ts";
import { type ApiResponse, makeTempDir, removeDir } from "../../harness/keyServiceProcess.ts";
import { openApiConformance } from "../../harness/openApiConformance.ts";
import { type ApiKey, assertOk, keyPath, keysPath, type Service, startService } from "./serviceFixture.ts";

/**
 * GET /openapi.json: a valid OpenAPI 3.1 document that describes exactly the routes the service
 * registers, and whose schemas accept the responses the real service gives.
 */

type Operation = { responses: Record<string, { content?: Record<string, { schema: object }> }> };
type OpenApiDocument = {
  openapi: string;
  paths: Record<string, Record<string, Operation | unknown>>;
  components: { schemas: Record<string, object> };
};

const OPERATION_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

let service: Service;
const OWNER = "owner";
let doc: OpenApiDocument;

before(async () => {
  service = await startService([{ username: OWNER, password: "owner-secret-1" }]);
  const res = await service.call({ path: "/openapi.json" });
  doc = assertOk<OpenApiDocument>(res);
});
after(async () => {
  await service?.close();
});

/** `/settings/1/accounts/{accountKey}/api-keys` → `/settings/1/accounts/:accountKey/api-keys` */
const toFastifyPath = (path: string) => path.replace(/\{([^}]+)\}/g, ":$1");
const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

/** The documented operations as "METHOD path" (OpenAPI path syntax). */
function documentedOperations(document: OpenApiDocument): Set<string> {
  const operations = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of Object.keys(item)) {
      if (OPERATION_METHODS.includes(method)) operations.add(`${method.toUpperCase()} ${path}`);
    }
  }
  return operations;
}

/** A concrete URL for a route pattern: a value for each path parameter that the route accepts. */
const SAMPLE_PARAMS: Record<string, string> = {
  accountKey: "_",
  key: "0123456789ABCDEF0123456789ABCDEF",
  version: "2",
  appId: "0123456789ABCDEF0123456789ABCDEF",
  msgId: "0123456789ABCDEF0123456789ABCDEF",
  pinId: "0123456789ABCDEF0123456789ABCDEF",
  linkId: "1",
  entryId: "1",
};
function concreteUrl(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    const value = SAMPLE_PARAMS[name];
    assert.ok(value, `no sample value for path parameter ${name}; add one to SAMPLE_PARAMS`);
    return value;
  });
}

test("GET /openapi.json needs no credentials and answers JSON", async () => {
  const res = await service.call({ path: "/openapi.json" });
  assert.equal(res.status, 200);
  assert.match(String(res.headers["content-type"]), /^application\/json\b/);
  assert.equal(typeof res.json, "object");
});

test("the document is a valid OpenAPI 3.1 document", async () => {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc) as Record<string, unknown>);
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  assert.match(doc.openapi, /^3\.1\.\d+$/);
  assert.match(validator.version, /^3\.1/);
});

test("the document describes the key-management operations the spec names", () => {
  const operations = documentedOperations(doc);
  for (const operation of [
    "POST /settings/1/accounts/{accountKey}/api-keys",
    "GET /settings/1/accounts/{accountKey}/api-keys",
    "GET /settings/1/accounts/{accountKey}/api-keys/{key}",
    "PUT /settings/1/accounts/{accountKey}/api-keys/{key}",
    "POST /2fa/{version}/api-key",
  ]) {
    assert.ok(operations.has(operation), `${operation} is not documented`);
  }
});

test("both creates document the Idempotency-Key header and its 409", () => {
  for (const path of ["/settings/1/accounts/{accountKey}/api-keys", "/2fa/{version}/api-key"]) {
    const post = doc.paths[path]?.post as Operation & {
      parameters?: { name: string; in: string; required?: boolean; schema: { maxLength?: number } }[];
    };
    const header = post.parameters?.find((p) => p.in === "header" && p.name === "Idempotency-Key");
    assert.ok(header, `POST ${path} does not document the Idempotency-Key header`);
    assert.equal(header.required, false);
    assert.equal(header.schema.maxLength, 255);
    assert.ok(post.responses["409"]?.content?.["application/json"], `POST ${path} does not document 409`);
  }
});

describe("documented routes against the routes the service registers", () => {
  const PROBE_USER = "probe";
  const PROBE_PASSWORD = "probe-password-1";
  const PROBE_AUTH = `Basic ${Buffer.from(`${PROBE_USER}:${PROBE_PASSWORD}`).toString("base64")}`;
  let dataDir: string;
  let data: DataDir;
  let app: FastifyInstance;
  /** Every (method, url) registered, as "METHOD url" with fastify's `:param` syntax. */
  const registered = new Set<string>();

  before(async () => {
    dataDir = await makeTempDir("keydesk-openapi-");
    data = openDataDir({ dataDir });
    ({ app } = buildHttpApp(data, {
      logLevel: "silent",
      onRoute: (route) => {
        const methods = Array.isArray(route.method) ? route.method : [route.method];
        for (const method of methods) registered.add(`${method} ${route.url}`);
      },
      // As serve and the desktop run it: with sync, whose routes the document describes too.
      extensions: [(service) => void attachSync(service)],
    }));
    await app.ready();
    await addAccount(data.store, { username: PROBE_USER, password: PROBE_PASSWORD });
  });
  after(async () => {
    await app?.close();
    data?.close();
    await removeDir(dataDir);
  });

  /**
   * Status of a request to a route, to tell real handlers from 405 answers. A provider path checks
   * the caller before its 405, so it gets the account's credentials (a service path none: its
   * event streams would not end).
   */
  const probeHeaders = (url: string) => (isServicePath(url) ? {} : { authorization: PROBE_AUTH });
  async function statusOf(method: string, url: string): Promise<number> {
    const res = await app.inject({
      method: method as HTTPMethods,
      url: concreteUrl(url),
      headers: probeHeaders(url),
    });
    return res.statusCode;
  }

  test("routes were collected", () => {
    assert.ok(registered.size > 0);
    assert.ok(registered.has("GET /openapi.json"), [...registered].join("\n"));
  });

  test("every documented operation is a registered route that does not answer 405", async () => {
    for (const operation of documentedOperations(doc)) {
      const [method, path] = operation.split(" ") as [string, string];
      const url = toFastifyPath(path);
      assert.ok(app.hasRoute({ method: method as HTTPMethods, url }), `${operation} is not a route`);
      assert.ok(registered.has(`${method} ${url}`), `${operation} was not registered`);
      assert.notEqual(await statusOf(method, url), 405, `${operation} answers 405`);
    }
  });

  test("every registered route that does not answer 405 is documented (HEAD through its GET)", async () => {
    const documented = documentedOperations(doc);
    const undocumented: string[] = [];
    for (const route of registered) {
      const [method, url] = route.split(" ") as [string, string];
      const status = await statusOf(method, url);
      if (status === 405) continue;
      const path = toOpenApiPath(url);
      const covered =
        documented.has(`${method} ${path}`) || (method === "HEAD" && documented.has(`GET ${path}`));
      if (!covered) undocumented.push(`${route} (answers ${status})`);
    }
    assert.deepEqual(undocumented, []);
  });

  test("the 405 answers on documented paths name exactly the documented methods in Allow", async () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      const methods = Object.keys(item)
        .filter((m) => OPERATION_METHODS.includes(m))
        .map((m) => m.toUpperCase());
      if (methods.includes("PATCH")) continue;
      const res = await app.inject({
        method: "PATCH",
        url: concreteUrl(toFastifyPath(path)),
        headers: probeHeaders(path),
      });
      assert.equal(res.statusCode, 405, path);
      const allow = String(res.headers.allow)
        .split(",")
        .map((m) => m.trim())
        .filter((m) => m !== "HEAD");
      assert.deepEqual(allow.sort(), methods.sort(), path);
    }
  });

  test("the document served is the document the app builds", async () => {
    const res = await app.inject({ method: "GET", url: "/openapi.json" });
    assert.deepEqual(res.json(), doc);
  });
});

describe("real responses against the document's schemas", () => {
  let conformance: ReturnType<typeof openApiConformance> | undefined;
  const checker = () => {
    conformance ??= openApiConformance(doc);
    return conformance;
  };
  /** Validates a real answer against the schema the document declares for its operation and status. */
  const validateResponse = (method: string, path: string, res: ApiResponse) =>
    checker().assertResponse(method, path, res);

  const KEYS = "/settings/1/accounts/{accountKey}/api-keys";
  const KEY = "/settings/1/accounts/{accountKey}/api-keys/{key}";

  test("a created key with every field, a minimal key, a list and a lookup match their schemas", async () => {
    const auth = service.auth(OWNER);
    const full = await service.call({
      method: "POST",
      path: keysPath(),
      authorization: auth,
      body: {
        name: "documented",
        allowedIPs: ["10.0.0.0/8", "::1"],
        permissions: ["ALL", "TFA"],
        validFrom: "2026-01-01T00:00:00.000+0100",
        validTo: "2027-01-01T00:00:00.000Z",
      },
    });
    validateResponse("POST", KEYS, full);
    const minimal = await service.call({
      method: "POST",
      path: keysPath(),
      authorization: auth,
      body: { name: "m" },
    });
    validateResponse("POST", KEYS, minimal);
    validateResponse("GET", KEYS, await service.call({ path: keysPath(), authorization: auth }));
    validateResponse(
      "GET",
      KEYS,
      await service.call({ path: `${keysPath()}?name=nothing`, authorization: auth }),
    );
    const key = (full.json as ApiKey).key;
    validateResponse("GET", KEY, await service.call({ path: keyPath(key), authorization: auth }));
    validateResponse(
      "PUT",
      KEY,
      await service.call({ method: "PUT", path: keyPath(key), authorization: auth, body: { validTo: null } }),
    );
  });

  test("the 2FA key answer matches its schema", async () => {
    const res = await service.call({
      method: "POST",
      path: "/2fa/2/api-key",
      authorization: service.auth(OWNER),
    });
    assert.equal(res.status, 200);
    validateResponse("POST", "/2fa/{version}/api-key", res);
  });

  test("error answers (400, 401, 403, 404, 405, 409, 413, 415) are documented and match the ApiError schema", async () => {
    const auth = service.auth(OWNER);
    const key = (await service.createKey(OWNER, { name: "for errors" })) as ApiKey;
    const first = await service.call({
      method: "POST",
      path: keysPath(),
      authorization: auth,
      body: { name: "first body" },
      headers: { "idempotency-key": "openapi-409" },
    });
    validateResponse("POST", KEYS, first);
    const cases: [string, string, () => Promise<ApiResponse>, number][] = [
      [
        "POST",
        KEYS,
        () => service.call({ method: "POST", path: keysPath(), authorization: auth, body: { name: "" } }),
        400,
      ],
      ["GET", KEYS, () => service.call({ path: `${keysPath()}?enabled=maybe`, authorization: auth }), 400],
      [
        "PUT",
        KEY,
        () =>
          service.call({ method: "PUT", path: keyPath(key.key), authorization: auth, body: { name: null } }),
        400,
      ],
      ["GET", KEYS, () => service.call({ path: keysPath() }), 401],
      ["POST", "/2fa/{version}/api-key", () => service.call({ method: "POST", path: "/2fa/1/api-key" }), 401],
      [
        "GET",
        KEY,
        () => service.call({ path: keyPath(key.key), authorization: `App ${key.publicApiKey}` }),
        403,
      ],
      [
        "GET",
        KEY,
        () => service.call({ path: keyPath("0123456789ABCDEF0123456789ABCDEF"), authorization: auth }),
        404,
      ],
      [
        "GET",
        KEYS,
        () => service.call({ path: keysPath("0123456789ABCDEF0123456789ABCDEF"), authorization: auth }),
        404,
      ],
      [
        "POST",
        "/2fa/{version}/api-key",
        () => service.call({ method: "POST", path: "/2fa/3/api-key", authorization: auth }),
        404,
      ],
      [
        "POST",
        KEYS,
        () =>
          service.call({
            method: "POST",
            path: keysPath(),
            authorization: auth,
            body: { name: "other body" },
            headers: { "idempotency-key": "openapi-409" },
          }),
        409,
      ],
      [
        "POST",
        "/2fa/{version}/api-key",
        () =>
          service.call({
            method: "POST",
            path: "/2fa/2/api-key",
            authorization: auth,
            headers: { "idempotency-key": "openapi-409" },
          }),
        409,
      ],
      [
        "POST",
        KEYS,
        () =>
          service.call({
            method: "POST",
            path: keysPath(),
            authorization: auth,
            rawBody: JSON.stringify({ name: "x".repeat(70_000) }),
            headers: { "content-type": "application/json" },
          }),
        413,
      ],
      [
        "PUT",
        KEY,
        () =>
          service.call({
            method: "PUT",
            path: keyPath(key.key),
            authorization: auth,
            rawBody: "name=x",
            headers: { "content-type": "text/plain" },
          }),
        415,
      ],
    ];
    for (const [method, path, call, status] of cases) {
      const res = await call();
      assert.equal(res.status, status, `${method} ${path}: ${res.text}`);
      validateResponse(method, path, res);
    }
    // A 405 is documented at the root, for a method a documented path has no operation for.
    const notAllowed = await service.call({ method: "DELETE", path: keyPath(key.key), authorization: auth });
    assert.equal(notAllowed.status, 405);
    const landed = checker().assertConforms({ method: "DELETE", path: keyPath(key.key), ...notAllowed });
    assert.deepEqual(landed, { operation: "x-method-not-allowed", responseKey: "405" });
  });

  test("the request schemas accept what the service accepts and refuse unknown fields", () => {
    const create = checker().schema("components/schemas/CreateApiKeyRequest");
    const update = checker().schema("components/schemas/UpdateApiKeyRequest");
    assert.ok(create({ name: "only a name" }), JSON.stringify(create.errors));
    assert.ok(
      create({
        name: "all",
        allowedIPs: ["10.0.0.0/8"],
        permissions: ["TFA"],
        validFrom: "2026-01-01T00:00:00.000+0100",
        validTo: null,
      }),
      JSON.stringify(create.errors),
    );
    assert.equal(create({ name: "x", colour: "red" }), false);
    assert.equal(create({ permissions: ["ALL"] }), false);
    assert.equal(create({ name: "x", permissions: ["X"] }), false);
    assert.ok(update({}), JSON.stringify(update.errors));
    assert.ok(update({ enabled: false, allowedIPs: null, validFrom: null }), JSON.stringify(update.errors));
    assert.equal(update({ colour: "red" }), false);
    assert.equal(update({ enabled: "no" }), false);
  });
});
