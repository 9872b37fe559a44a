import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { addAccount, basic, request } from "../../harness/keyServiceProcess.ts";
import { link, PASSWORD, type SyncPair, startPair } from "./syncFixture.ts";

let pair: SyncPair;
let subAccountKey: string;
before(async () => {
  pair = await startPair();
  await pair.local.stop();
  subAccountKey = await addAccount(pair.local.dataDir, "owner-sub", PASSWORD, "owner");
  await addAccount(pair.local.dataDir, "stranger", PASSWORD);
  await pair.local.start();
});
after(() => pair.close());

const messageIdOf = (json: unknown) =>
  (json as { requestError: { serviceException: { messageId: string } } }).requestError.serviceException
    .messageId;

test("bad link requests are refused field by field, and nothing is linked", async () => {
  const { local } = pair;
  const res = await local.call<{
    requestError: { serviceException: { validationErrors: Record<string, string[]> } };
  }>("POST", "/local/1/sync/links", {
    accountKey: "_",
    remote: { baseUrl: "ftp://user:pw@example.com", username: "", password: "x", accountKey: "../etc" },
    intervalSeconds: 1,
    extra: true,
  });
  assert.equal(res.status, 400);
  const errors = res.json.requestError.serviceException.validationErrors;
  assert.deepEqual(Object.keys(errors).sort(), ["extra", "intervalSeconds", "remote"]);
  assert.equal((await local.ok<{ links: unknown[] }>("GET", "/local/1/sync/links")).links.length, 0);
});

test("an account has one link; a sub-account can have its own", async () => {
  const { local, remote } = pair;
  await link(local, remote.url);
  const second = await local.call("POST", "/local/1/sync/links", {
    accountKey: "_",
    remote: { baseUrl: remote.url, username: "team", password: PASSWORD },
  });
  assert.equal(second.status, 409);
  assert.equal(messageIdOf(second.json), "CONFLICT");
  const sub = await local.call<{ accountKey: string }>("POST", "/local/1/sync/links", {
    accountKey: subAccountKey,
    remote: { baseUrl: remote.url, username: "team", password: PASSWORD },
  });
  assert.equal(sub.status, 200, sub.text);
  assert.equal(sub.json.accountKey, subAccountKey);
});

test("links are visible only to the credentials that manage their account", async () => {
  const { local } = pair;
  const asStranger = (method: string, path: string) =>
    request(local.url, { method, path, authorization: basic("stranger", PASSWORD) });
  assert.deepEqual((await asStranger("GET", "/local/1/sync/links")).json, { links: [] });
  for (const [method, path] of [
    ["GET", "/local/1/sync/links/1"],
    ["POST", "/local/1/sync/links/1/run"],
    ["GET", "/local/1/sync/links/1/keys"],
    ["GET", "/local/1/sync/links/1/outbox"],
    ["DELETE", "/local/1/sync/links/1"],
  ] as const) {
    const res = await asStranger(method, path);
    assert.equal(res.status, 404, `${method} ${path}`);
  }
  const asSub = await request(local.url, {
    path: "/local/1/sync/links",
    authorization: basic("owner-sub", PASSWORD),
  });
  assert.equal(
    (asSub.json as { links: unknown[] }).links.length,
    1,
    "the sub-account sees its own link only",
  );
  const anonymous = await request(local.url, { path: "/local/1/sync/links" });
  assert.equal(anonymous.status, 401);
});

test("odd ids are 404, wrong methods 405, and removing a link keeps its keys", async () => {
  const { local, remote } = pair;
  for (const id of ["0", "abc", "1e3", "99999999999999999999"]) {
    assert.equal((await local.call("GET", `/local/1/sync/links/${id}`)).status, 404, id);
  }
  assert.equal((await local.call("PATCH", "/local/1/sync/links/1", {})).status, 405);
  await remote.createKey({ name: "kept after unlink" });
  await local.ok("POST", "/local/1/sync/links/1/run");
  assert.equal((await local.call("DELETE", "/local/1/sync/links/1")).status, 204);
  assert.equal((await local.call("GET", "/local/1/sync/links/1")).status, 404);
  assert.ok((await local.keys()).some((key) => key.name === "kept after unlink"));
  const unlinkedCopy = (await local.keys()).find((key) => key.name === "kept after unlink");
  assert.ok(unlinkedCopy);
  await local.updateKey(unlinkedCopy.key, { enabled: false });
  const relinked = await link(local, remote.url);
  assert.ok(relinked.id > 1, "the account can be linked again");
  const state = await local.ok<{ linkedKeys: number; pending: number; lastError: string | null }>(
    "POST",
    `/local/1/sync/links/${relinked.id}/run`,
  );
  assert.equal(state.lastError, null, "no key refused as a duplicate");
  assert.equal(state.linkedKeys, (await remote.keys()).length, "the earlier copies are linked again");
  assert.equal((await local.keys()).filter((key) => key.name === "kept after unlink").length, 1);
  assert.equal(
    (await remote.keys()).find((key) => key.name === "kept after unlink")?.enabled,
    false,
    "the change made while unlinked went out",
  );
});
