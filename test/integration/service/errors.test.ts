import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  type ApiKey,
  assertApiError,
  assertOk,
  keyPath,
  keysPath,
  type Service,
  startService,
} from "./serviceFixture.ts";

/** Errors outside the domain rules: routes, methods, media types, sizes, JSON parsing. */

let service: Service;
const OWNER = "owner";
let key: ApiKey;

before(async () => {
  service = await startService([{ username: OWNER, password: "owner-secret-1" }]);
  key = await service.createKey(OWNER, { name: "existing" });
});
after(async () => {
  await service?.close();
});

const auth = () => service.auth(OWNER);
const JSON_TYPE = { "content-type": "application/json" };

/** Asserts that the owner's keys did not change through a refused request. */
async function unchanged<T>(work: () => Promise<T>): Promise<T> {
  const before = await service.listKeys(OWNER);
  const result = await work();
  assert.deepEqual(await service.listKeys(OWNER), before);
  return result;
}

describe("unknown routes", () => {
  const servicePaths = [
    "/settings/2/accounts/_/api-keys",
    "/settings/1/accounts/_/api-key",
    "/settings/1/accounts/_",
    "/settings/1/accounts/_/api-keys/ABC/extra",
    "/local/1/nothing",
    `/settings/1/accounts/${"A".repeat(600)}/api-keys`,
    `/settings/1/accounts/_/api-keys/${"B".repeat(600)}`,
  ];
  for (const path of servicePaths) {
    test(`GET ${path.length > 70 ? `${path.slice(0, 60)}…` : path} is a 404 NOT_FOUND, with or without credentials`, async () => {
      assertApiError(await service.call({ path }), 404, "NOT_FOUND");
      assertApiError(await service.call({ path, authorization: auth() }), 404, "NOT_FOUND");
    });
  }

  // Every other path is the provider's: its caller is checked before the 404 (providerPathGate.ts).
  const providerPaths = [
    "/",
    "/nope",
    "/2fa/2/api-keys",
    "/openapi.yaml",
    `/2fa/2/applications/${"C".repeat(600)}`,
  ];
  for (const path of providerPaths) {
    test(`GET ${path.length > 70 ? `${path.slice(0, 60)}…` : path} is a 401 without credentials, a 404 NOT_FOUND with them`, async () => {
      assertApiError(await service.call({ path }), 401, "UNAUTHORIZED");
      assertApiError(await service.call({ path, authorization: auth() }), 404, "NOT_FOUND");
    });
  }

  test("an unknown route's text names the method and path, without the query", async () => {
    const exception = assertApiError(
      await service.call({
        method: "POST",
        path: "/no/such/route?publicApiKey=secret",
        authorization: auth(),
        body: {},
      }),
      404,
      "NOT_FOUND",
    );
    assert.match(exception.text, /POST \/no\/such\/route/);
    assert.doesNotMatch(exception.text, /secret/);
  });
});

describe("methods", () => {
  const cases: [string, string, string[]][] = [
    ["the key list", keysPath(), ["GET", "POST"]],
    ["one key", "KEY", ["GET", "PUT"]],
  ];
  for (const [what, pathOrKey, allowed] of cases) {
    for (const method of ["PATCH", "DELETE"]) {
      test(`${method} on ${what} is a 405 with an Allow header naming ${allowed.join(" and ")}`, async () => {
        const path = pathOrKey === "KEY" ? keyPath(key.key) : pathOrKey;
        const res = await unchanged(() =>
          service.call({
            method,
            path,
            authorization: auth(),
            ...(method === "PATCH" && { body: { enabled: false } }),
          }),
        );
        assertApiError(res, 405, "METHOD_NOT_ALLOWED");
        const allow = String(res.headers.allow)
          .split(",")
          .map((m) => m.trim());
        for (const m of allowed) assert.ok(allow.includes(m), `Allow: ${res.headers.allow}`);
        assert.ok(!allow.includes(method), `Allow: ${res.headers.allow}`);
      });
    }
  }

  test("a 405 is answered even without credentials, and for sub-paths of any account", async () => {
    const res = await service.call({
      method: "DELETE",
      path: keyPath(key.key, "0123456789ABCDEF0123456789ABCDEF"),
    });
    assertApiError(res, 405, "METHOD_NOT_ALLOWED");
    assert.ok(res.headers.allow);
  });

  test("POST on /openapi.json is a 405 naming GET", async () => {
    const res = await service.call({ method: "POST", path: "/openapi.json", body: {} });
    assertApiError(res, 405, "METHOD_NOT_ALLOWED");
    assert.match(String(res.headers.allow), /\bGET\b/);
  });
});

describe("request bodies", () => {
  test("a text/plain body is a 415 on create and on update", async () => {
    await unchanged(async () => {
      for (const [method, path] of [
        ["POST", keysPath()],
        ["PUT", keyPath(key.key)],
      ] as const) {
        const res = await service.call({
          method,
          path,
          authorization: auth(),
          rawBody: '{"name":"plain"}',
          headers: { "content-type": "text/plain" },
        });
        assertApiError(res, 415, "UNSUPPORTED_MEDIA_TYPE");
      }
    });
  });

  test("form-encoded and XML bodies are a 415 too", async () => {
    await unchanged(async () => {
      for (const [type, body] of [
        ["application/x-www-form-urlencoded", "name=form"],
        ["application/xml", "<name>xml</name>"],
        ["multipart/form-data; boundary=x", "--x\r\n\r\nname\r\n--x--"],
      ]) {
        const res = await service.call({
          method: "POST",
          path: keysPath(),
          authorization: auth(),
          rawBody: body as string,
          headers: { "content-type": type as string },
        });
        assertApiError(res, 415, "UNSUPPORTED_MEDIA_TYPE");
      }
    });
  });

  test("application/json with a charset parameter is accepted", async () => {
    const res = await service.call({
      method: "POST",
      path: keysPath(),
      authorization: auth(),
      rawBody: JSON.stringify({ name: "charset" }),
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    assert.equal(assertOk<ApiKey>(res).name, "charset");
  });

  test("a JSON body over 64 KiB is a 413 on create and on update", async () => {
    const big = JSON.stringify({ name: "big", padding: "x".repeat(64 * 1024) });
    await unchanged(async () => {
      for (const [method, path] of [
        ["POST", keysPath()],
        ["PUT", keyPath(key.key)],
      ] as const) {
        const res = await service.call({
          method,
          path,
          authorization: auth(),
          rawBody: big,
          headers: JSON_TYPE,
        });
        assertApiError(res, 413, "PAYLOAD_TOO_LARGE");
      }
    });
  });

  test("a body just under 64 KiB reaches validation (400 for its unknown field, not 413)", async () => {
    const padding = "x".repeat(64 * 1024 - 100);
    const res = await unchanged(() =>
      service.call({ method: "POST", path: keysPath(), authorization: auth(), body: { name: "n", padding } }),
    );
    assertApiError(res, 400, "BAD_REQUEST");
  });

  const malformed = [
    '{"name": "x"',
    "{name: 'x'}",
    '{"name":"x",}',
    "nul",
    '{"name":"x"} trailing',
    "\u0000",
  ];
  for (const raw of malformed) {
    test(`malformed JSON ${JSON.stringify(raw)} is a 400`, async () => {
      const res = await unchanged(() =>
        service.call({
          method: "POST",
          path: keysPath(),
          authorization: auth(),
          rawBody: raw,
          headers: JSON_TYPE,
        }),
      );
      assertApiError(res, 400, "BAD_REQUEST");
    });
  }

  const poisoned = [
    '{"__proto__":{}}',
    '{"name":"x","__proto__":{"enabled":false}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
  ];
  for (const raw of poisoned) {
    test(`a prototype-poisoning body ${raw} is a 400 on create and on update`, async () => {
      await unchanged(async () => {
        for (const [method, path] of [
          ["POST", keysPath()],
          ["PUT", keyPath(key.key)],
        ] as const) {
          const res = await service.call({
            method,
            path,
            authorization: auth(),
            rawBody: raw,
            headers: JSON_TYPE,
          });
          assertApiError(res, 400, "BAD_REQUEST");
        }
      });
    });
  }

  test("after all of these the service still works and the key is as created", async () => {
    assert.deepEqual(await service.getKey(OWNER, key.key), key);
    const created = await service.createKey(OWNER, { name: "still fine" });
    assert.equal(created.name, "still fine");
  });
});
