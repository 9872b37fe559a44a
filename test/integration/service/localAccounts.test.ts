import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { basic } from "../../harness/keyServiceProcess.ts";
import { assertApiError, assertOk, type Service, startService } from "./serviceFixture.ts";

/**
 * GET /local/1/accounts: the accounts a caller's Basic credentials manage, own account first,
 * then its sub-accounts at any depth in creation order; nothing of other account trees.
 */

type Accounts = { accounts: { accountKey: string; username: string; parentAccountKey: string | null }[] };

let service: Service;

before(async () => {
  service = await startService([
    { username: "owner", password: "owner-secret-1" },
    { username: "stranger", password: "stranger-secret-1" },
    { username: "team", password: "team-secret-1", parent: "owner" },
    { username: "squad", password: "squad-secret-1", parent: "team" },
    { username: "ops", password: "ops-secret-1", parent: "owner" },
  ]);
});
after(async () => {
  await service?.close();
});

const list = async (username: string) =>
  assertOk<Accounts>(
    await service.call({ path: "/local/1/accounts", authorization: service.auth(username) }),
  );

test("the owner sees its own account first, then every sub-account at any depth in creation order", async () => {
  const keys = service.accountKeys;
  const body = await list("owner");
  assert.deepEqual(Object.keys(body), ["accounts"]);
  assert.deepEqual(body.accounts, [
    { accountKey: keys.owner, username: "owner", parentAccountKey: null },
    { accountKey: keys.team, username: "team", parentAccountKey: keys.owner },
    { accountKey: keys.squad, username: "squad", parentAccountKey: keys.team },
    { accountKey: keys.ops, username: "ops", parentAccountKey: keys.owner },
  ]);
});

test("a sub-account sees itself (parentAccountKey null) and its own sub-accounts, not its parent or siblings", async () => {
  const keys = service.accountKeys;
  assert.deepEqual((await list("team")).accounts, [
    { accountKey: keys.team, username: "team", parentAccountKey: null },
    { accountKey: keys.squad, username: "squad", parentAccountKey: keys.team },
  ]);
  assert.deepEqual((await list("stranger")).accounts, [
    { accountKey: keys.stranger, username: "stranger", parentAccountKey: null },
  ]);
});

test("no credentials or a wrong password answer 401, an API key 403, other methods 405", async () => {
  assertApiError(await service.call({ path: "/local/1/accounts" }), 401, "UNAUTHORIZED");
  assertApiError(
    await service.call({ path: "/local/1/accounts", authorization: basic("owner", "wrong-password") }),
    401,
    "UNAUTHORIZED",
  );
  const key = await service.createKey("owner", { name: "app" });
  assertApiError(
    await service.call({ path: "/local/1/accounts", authorization: `App ${key.publicApiKey}` }),
    403,
    "FORBIDDEN",
  );
  assertApiError(
    await service.call({ method: "POST", path: "/local/1/accounts", authorization: service.auth("owner") }),
    405,
    "METHOD_NOT_ALLOWED",
  );
});
