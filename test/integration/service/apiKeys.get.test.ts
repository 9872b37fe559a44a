import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import {
  type ApiKey,
  assertApiError,
  assertOk,
  keyPath,
  type Service,
  startService,
} from "./serviceFixture.ts";

/** GET /settings/1/accounts/_/api-keys/{key}. */

let service: Service;
const OWNER = "owner";
const OTHER = "other";
let ownerKey: ApiKey;
let otherKey: ApiKey;

before(async () => {
  service = await startService([
    { username: OWNER, password: "owner-secret-1" },
    { username: OTHER, password: "other-secret-1" },
  ]);
  ownerKey = await service.createKey(OWNER, {
    name: "get me",
    allowedIPs: ["::1", "127.0.0.0/8"],
    permissions: ["ALL", "TFA"],
    validFrom: "2026-01-01T00:00:00.000Z",
    validTo: "2030-01-01T00:00:00.000Z",
  });
  otherKey = await service.createKey(OTHER, { name: "not yours" });
});
after(async () => {
  await service?.close();
});

const get = (path: string, username = OWNER) => service.call({ path, authorization: service.auth(username) });

test("answers 200 with the key object as it was created", async () => {
  assert.deepEqual(assertOk(await get(keyPath(ownerKey.key))), ownerKey);
});

test("the caller's own accountKey in the path works like `_`", async () => {
  assert.deepEqual(assertOk(await get(keyPath(ownerKey.key, service.accountKeys[OWNER]))), ownerKey);
});

test("an unknown key is a 404", async () => {
  const unknown = randomBytes(16).toString("hex").toUpperCase();
  const exception = assertApiError(await get(keyPath(unknown)), 404, "NOT_FOUND");
  assert.match(exception.text, new RegExp(unknown));
});

const malformed: [string, () => string][] = [
  ["the key in lower case", () => ownerKey.key.toLowerCase()],
  ["a short id", () => "ABC"],
  ["33 hex digits", () => `${ownerKey.key}A`],
  ["non-hex letters", () => "G".repeat(32)],
  ["the publicApiKey instead of the key", () => ownerKey.publicApiKey],
  ["a percent-encoded slash", () => "AB%2FCD"],
  ["a 400-character id", () => "F".repeat(400)],
  ["a 2000-character id", () => "F".repeat(2000)],
  ["SQL-looking text", () => "1%27%20OR%20%271%27%3D%271"],
];
for (const [what, id] of malformed) {
  test(`a malformed key id (${what}) is a 404`, async () => {
    assertApiError(await get(keyPath(id())), 404, "NOT_FOUND");
  });
}

test("the key of another account is a 404, through `_` and through the caller's accountKey", async () => {
  assertApiError(await get(keyPath(otherKey.key)), 404, "NOT_FOUND");
  assertApiError(await get(keyPath(otherKey.key, service.accountKeys[OWNER])), 404, "NOT_FOUND");
  assertApiError(await get(keyPath(ownerKey.key), OTHER), 404, "NOT_FOUND");
  // ...while each owner still reads its own.
  assert.deepEqual(assertOk(await get(keyPath(otherKey.key), OTHER)), otherKey);
});

test("an extra path segment after the key is an unknown route (404)", async () => {
  assertApiError(await get(`${keyPath(ownerKey.key)}/extra`), 404, "NOT_FOUND");
});

test("a 404 names the part of the path that names nothing (key, accountKey); an unknown route's names none", async () => {
  const unknownKey = assertApiError(await get(keyPath(otherKey.key)), 404, "NOT_FOUND");
  assert.deepEqual(Object.keys(unknownKey.validationErrors ?? {}), ["key"]);
  const unmanaged = assertApiError(
    await get(keyPath(ownerKey.key, service.accountKeys[OWNER]), OTHER),
    404,
    "NOT_FOUND",
  );
  assert.deepEqual(Object.keys(unmanaged.validationErrors ?? {}), ["accountKey"]);
  const noRoute = assertApiError(await get(`${keyPath(ownerKey.key)}/extra`), 404, "NOT_FOUND");
  assert.equal(noRoute.validationErrors, undefined);
});
