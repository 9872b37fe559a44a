import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
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

/**
 * Accounts made with the CLI: `owner`, its sub-account `sub`, and an unrelated `other`.
 * An account manages its own keys and its sub-accounts' keys; everything else is a 404.
 */

let service: Service;
const OWNER = "owner";
const SUB = "sub";
const OTHER = "other";
let ownerKey: ApiKey;
let subKey: ApiKey;
let otherKey: ApiKey;
const accountKey = (username: string) => service.accountKeys[username] as string;

before(async () => {
  service = await startService([
    { username: OWNER, password: "owner-secret-1" },
    { username: SUB, password: "sub-secret-1", parent: OWNER },
    { username: OTHER, password: "other-secret-1" },
  ]);
  ownerKey = await service.createKey(OWNER, { name: "owner's key" });
  subKey = await service.createKey(SUB, { name: "sub's key" });
  otherKey = await service.createKey(OTHER, { name: "other's key" });
});
after(async () => {
  await service?.close();
});

/** The four management calls on one account path, answered as the given user. */
function callsOn(username: string, account: string, key: string) {
  const authorization = service.auth(username);
  return {
    list: () => service.call({ path: keysPath(account), authorization }),
    create: () =>
      service.call({ method: "POST", path: keysPath(account), authorization, body: { name: "x" } }),
    get: () => service.call({ path: keyPath(key, account), authorization }),
    update: () =>
      service.call({ method: "PUT", path: keyPath(key, account), authorization, body: { name: "hijacked" } }),
  };
}

/** list, create, get and update on an account the caller does not manage: all 404. */
async function assertAll404(username: string, account: string, key: string) {
  await assert404(username, account, key, ["list", "create", "get", "update"]);
}

/** get and update of a key that is not in the addressed account: both 404. */
async function assertKey404(username: string, account: string, key: string) {
  await assert404(username, account, key, ["get", "update"]);
}

async function assert404(
  username: string,
  account: string,
  key: string,
  names: (keyof ReturnType<typeof callsOn>)[],
) {
  const calls = callsOn(username, account, key);
  for (const name of names) {
    const res = await calls[name]();
    assert.equal(res.status, 404, `${name} as ${username} on ${account}/${key}: ${res.status} ${res.text}`);
    assertApiError(res, 404, "NOT_FOUND");
  }
}

/** Snapshot of every account's keys, read by each account itself. */
async function allKeys() {
  return {
    owner: await service.listKeys(OWNER),
    sub: await service.listKeys(SUB),
    other: await service.listKeys(OTHER),
  };
}

describe("`_` is the caller's own account", () => {
  test("each account's key created through `_` carries its own accountKey", () => {
    assert.equal(ownerKey.accountKey, accountKey(OWNER));
    assert.equal(subKey.accountKey, accountKey(SUB));
    assert.equal(otherKey.accountKey, accountKey(OTHER));
    assert.equal(new Set([ownerKey.accountKey, subKey.accountKey, otherKey.accountKey]).size, 3);
  });

  test("`_` and the caller's own accountKey address the same keys", async () => {
    for (const username of [OWNER, SUB, OTHER]) {
      assert.deepEqual(
        await service.listKeys(username, "", accountKey(username)),
        await service.listKeys(username),
      );
    }
  });

  test("a parent's `_` lists only its own keys, not its sub-account's", async () => {
    const keys = await service.listKeys(OWNER);
    assert.ok(keys.every((key) => key.accountKey === accountKey(OWNER)));
    assert.ok(!keys.some((key) => key.key === subKey.key));
  });
});

describe("a parent manages its sub-account through the sub's accountKey", () => {
  test("create: the key lands in the sub-account", async () => {
    const created = await service.createKey(
      OWNER,
      { name: "made by owner", permissions: ["TFA"] },
      accountKey(SUB),
    );
    assert.equal(created.accountKey, accountKey(SUB));
    assert.ok((await service.listKeys(SUB)).some((key) => key.key === created.key));
    assert.ok(!(await service.listKeys(OWNER)).some((key) => key.key === created.key));
  });

  test("list: the same keys the sub sees through `_`", async () => {
    assert.deepEqual(await service.listKeys(OWNER, "", accountKey(SUB)), await service.listKeys(SUB));
    assert.deepEqual(await service.listKeys(OWNER, `?publicApiKey=${subKey.publicApiKey}`, accountKey(SUB)), [
      await service.getKey(SUB, subKey.key),
    ]);
  });

  test("get and update: the sub sees the parent's change", async () => {
    const key = await service.createKey(SUB, { name: "sub's second key" });
    assert.deepEqual(await service.getKey(OWNER, key.key, accountKey(SUB)), key);
    const res = await service.call({
      method: "PUT",
      path: keyPath(key.key, accountKey(SUB)),
      authorization: service.auth(OWNER),
      body: { name: "renamed by owner", enabled: false },
    });
    const updated = assertOk<ApiKey>(res);
    assert.equal(updated.name, "renamed by owner");
    assert.equal(updated.enabled, false);
    assert.equal(updated.accountKey, accountKey(SUB));
    assert.deepEqual(await service.getKey(SUB, key.key), updated);
  });

  test("a sub-account key is not reachable through the parent's own path", async () => {
    await assertKey404(OWNER, "_", subKey.key);
    await assertKey404(OWNER, accountKey(OWNER), subKey.key);
  });
});

describe("what a sub-account cannot reach", () => {
  test("its parent's account and keys are a 404 for every call, and nothing changes", async () => {
    const before = await allKeys();
    await assertAll404(SUB, accountKey(OWNER), ownerKey.key);
    await assertKey404(SUB, "_", ownerKey.key);
    assert.deepEqual(await allKeys(), before);
  });

  test("an unrelated account is a 404 for the sub too", async () => {
    await assertAll404(SUB, accountKey(OTHER), otherKey.key);
  });
});

describe("what an unrelated account cannot reach", () => {
  test("the owner's and the sub's accounts and keys are a 404 for every call, and nothing changes", async () => {
    const before = await allKeys();
    await assertAll404(OTHER, accountKey(OWNER), ownerKey.key);
    await assertAll404(OTHER, accountKey(SUB), subKey.key);
    await assertKey404(OTHER, "_", ownerKey.key);
    await assertKey404(OTHER, "_", subKey.key);
    assert.deepEqual(await allKeys(), before);
  });

  test("the owner cannot reach the unrelated account either", async () => {
    await assertAll404(OWNER, accountKey(OTHER), otherKey.key);
  });

  test("the 404 for a foreign account says the same as for an account that does not exist", async () => {
    const unknown = randomBytes(16).toString("hex").toUpperCase();
    const foreign = assertApiError(
      await service.call({ path: keysPath(accountKey(OWNER)), authorization: service.auth(OTHER) }),
      404,
      "NOT_FOUND",
    );
    const missing = assertApiError(
      await service.call({ path: keysPath(unknown), authorization: service.auth(OTHER) }),
      404,
      "NOT_FOUND",
    );
    assert.equal(
      foreign.text.replace(accountKey(OWNER), "ACCOUNT"),
      missing.text.replace(unknown, "ACCOUNT"),
    );
  });
});

describe("bogus accountKeys are a 404", () => {
  const bogus: [string, () => string][] = [
    ["abc", () => "abc"],
    ["an existing accountKey in lower case", () => accountKey(OWNER).toLowerCase()],
    ["32 lower-case hex digits", () => randomBytes(16).toString("hex")],
    ["unknown 32 upper-case hex digits", () => randomBytes(16).toString("hex").toUpperCase()],
    ["a username instead of an accountKey", () => OWNER],
    ["`__`", () => "__"],
    ["`-`", () => "-"],
  ];
  for (const [what, account] of bogus) {
    test(`${what}: list, create, get and update are a 404`, async () => {
      const before = await allKeys();
      await assertAll404(OWNER, account(), ownerKey.key);
      assert.deepEqual(await allKeys(), before);
    });
  }
});
