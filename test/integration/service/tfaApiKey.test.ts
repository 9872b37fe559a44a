import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ApiResponse } from "../../harness/keyServiceProcess.ts";
import {
  type ApiKey,
  assertApiError,
  assertValidationError,
  PUBLIC_API_KEY_PATTERN,
  type Service,
  startService,
} from "./serviceFixture.ts";

/** POST /2fa/{version}/api-key: a TFA key in the caller's account, answered as a JSON string. */

let service: Service;
const OWNER = "owner";
const SUB = "sub";

before(async () => {
  service = await startService([
    { username: OWNER, password: "owner-secret-1" },
    { username: SUB, password: "sub-secret-1", parent: OWNER },
  ]);
});
after(async () => {
  await service?.close();
});

const post = (
  version: string,
  options: { rawBody?: string; body?: unknown; headers?: Record<string, string> } = {},
  username = OWNER,
) =>
  service.call({
    method: "POST",
    path: `/2fa/${version}/api-key`,
    authorization: service.auth(username),
    ...options,
  });

/** The 200 answer: a JSON string with a publicApiKey; returns that value. */
function publicApiKeyOf(res: ApiResponse): string {
  assert.equal(res.status, 200, res.text);
  assert.match(String(res.headers["content-type"]), /^application\/json\b/);
  assert.equal(typeof res.json, "string", `body is not a JSON string: ${res.text}`);
  assert.equal(res.text, JSON.stringify(res.json));
  assert.match(res.json as string, PUBLIC_API_KEY_PATTERN);
  return res.json as string;
}

/** The key with this publicApiKey in the account's list (exactly one asserted). */
async function listed(publicApiKey: string, username = OWNER): Promise<ApiKey> {
  const keys = await service.listKeys(username, `?publicApiKey=${publicApiKey}`);
  assert.equal(keys.length, 1, JSON.stringify(keys));
  return keys[0] as ApiKey;
}

describe("creating a 2FA key", () => {
  for (const version of ["1", "2"]) {
    test(`POST /2fa/${version}/api-key answers a publicApiKey of a new enabled TFA key in the caller's account`, async () => {
      const before = await service.listKeys(OWNER);
      const publicApiKey = publicApiKeyOf(await post(version));
      const key = await listed(publicApiKey);
      assert.deepEqual(key.permissions, ["TFA"]);
      assert.equal(key.enabled, true);
      assert.equal(key.accountKey, service.accountKeys[OWNER]);
      assert.equal(key.publicApiKey, publicApiKey);
      assert.equal("allowedIPs" in key, false);
      assert.ok(key.name.trim().length > 0);
      const after = await service.listKeys(OWNER);
      assert.equal(after.length, before.length + 1);
      assert.deepEqual(after.at(-1), key, "the new key is listed last (creation order)");
      assert.deepEqual(await service.getKey(OWNER, key.key), key);
    });
  }

  test("every call makes a new key", async () => {
    const a = publicApiKeyOf(await post("2"));
    const b = publicApiKeyOf(await post("2"));
    assert.notEqual(a, b);
    assert.notEqual((await listed(a)).key, (await listed(b)).key);
  });

  test("a sub-account's call puts the key in the sub-account, not in its parent", async () => {
    const publicApiKey = publicApiKeyOf(await post("2", {}, SUB));
    assert.equal((await listed(publicApiKey, SUB)).accountKey, service.accountKeys[SUB]);
    assert.deepEqual(await service.listKeys(OWNER, `?publicApiKey=${publicApiKey}`), []);
  });

  test("the new key can be managed like any other (disabled by update)", async () => {
    const key = await listed(publicApiKeyOf(await post("1")));
    const res = await service.call({
      method: "PUT",
      path: `/settings/1/accounts/_/api-keys/${key.key}`,
      authorization: service.auth(OWNER),
      body: { enabled: false },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal((await listed(key.publicApiKey)).enabled, false);
  });
});

describe("request bodies", () => {
  test("Content-Type: application/json with an empty body is accepted", async () => {
    const res = await post("2", { rawBody: "", headers: { "content-type": "application/json" } });
    assert.deepEqual((await listed(publicApiKeyOf(res))).permissions, ["TFA"]);
  });

  test("no Content-Type and no body is accepted", async () => {
    publicApiKeyOf(await post("2"));
  });

  test("{} is accepted", async () => {
    publicApiKeyOf(await post("1", { body: {} }));
    publicApiKeyOf(await post("2", { rawBody: " { } ", headers: { "content-type": "application/json" } }));
  });

  const nonEmpty: [string, unknown][] = [
    ["an object with a field", { name: "mine" }],
    ["permissions", { permissions: ["ALL"] }],
    ["an array", []],
    ["a string", "x"],
    ["null", null],
  ];
  for (const [what, body] of nonEmpty) {
    test(`a non-empty body (${what}) is a 400 and creates no key`, async () => {
      const before = await service.listKeys(OWNER);
      assert.deepEqual(assertValidationError(await post("2", { body }), "body"), ["must be empty"]);
      assert.deepEqual(await service.listKeys(OWNER), before);
    });
  }

  test("/openapi.json declares the body the route validates: optional, and nothing but {}", async () => {
    const doc = (await service.call({ path: "/openapi.json" })).json as {
      paths: Record<string, { post: { requestBody?: object } }>;
    };
    const requestBody = doc.paths["/2fa/{version}/api-key"]?.post.requestBody;
    assert.deepEqual(requestBody, {
      required: false,
      description: "Nothing: send no body, or {}",
      content: {
        "application/json": {
          schema: {
            type: "object",
            properties: {},
            additionalProperties: false,
            description: "Nothing: send no body, or {}",
          },
        },
      },
    });
  });

  test("a body that is not JSON is a 415 and creates no key", async () => {
    const before = await service.listKeys(OWNER);
    const res = await post("2", { rawBody: "please", headers: { "content-type": "text/plain" } });
    assertApiError(res, 415, "UNSUPPORTED_MEDIA_TYPE");
    assert.deepEqual(await service.listKeys(OWNER), before);
  });
});

describe("refusals", () => {
  for (const version of ["3", "0", "v2", "10"]) {
    test(`POST /2fa/${version}/api-key is a 404`, async () => {
      const before = await service.listKeys(OWNER);
      assertApiError(await post(version), 404, "NOT_FOUND");
      assert.deepEqual(await service.listKeys(OWNER), before);
    });
  }

  test("without Authorization it is a 401 with the Basic challenge, and no key is created", async () => {
    const before = await service.listKeys(OWNER);
    for (const version of ["1", "2"]) {
      const res = await service.call({ method: "POST", path: `/2fa/${version}/api-key` });
      assertApiError(res, 401, "UNAUTHORIZED");
      assert.match(String(res.headers["www-authenticate"]), /^Basic realm="key-service"/);
    }
    assert.deepEqual(await service.listKeys(OWNER), before);
  });

  test("GET is a 405 that names POST in Allow", async () => {
    const res = await service.call({ path: "/2fa/2/api-key", authorization: service.auth(OWNER) });
    assertApiError(res, 405, "METHOD_NOT_ALLOWED");
    assert.equal(res.headers.allow, "POST");
  });
});
