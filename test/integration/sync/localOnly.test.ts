import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { LocalOnlyKeyPageDto } from "../../../shared/sync.ts";
import { byName, link, linkState, outbox, runLink, type SyncPair, startPair } from "./syncFixture.ts";

/**
 * Keys already in an account when it is linked are local-only: listed (count and pages) and
 * pushed on request, one by one or all, through the outbox like a key created after the link.
 */

let pair: SyncPair;
let linkId: number;
const localOnly = (query = "") =>
  pair.local.ok<LocalOnlyKeyPageDto>("GET", `/local/1/sync/links/${linkId}/local-only${query}`);
const push = (body: unknown) =>
  pair.local.call<{ queued: number }>("POST", `/local/1/sync/links/${linkId}/local-only/push`, body);

before(async () => {
  pair = await startPair();
  await pair.local.createKeys(5, (i) => `before the link ${i}`);
  const disabled = await pair.local.createKey({ name: "disabled before the link" });
  await pair.local.updateKey(disabled.key, { enabled: false });
  await pair.remote.createKey({ name: "remote key" });
  linkId = (await link(pair.local, pair.remote.url)).id;
  await runLink(pair.local, linkId);
});
after(() => pair.close());

test("keys made before the link are listed as local-only, paged in creation order; mirrored ones are not", async () => {
  const first = await localOnly("?limit=4");
  assert.equal(first.count, 6);
  assert.equal(first.keys.length, 4);
  assert.ok(first.nextCursor);
  const rest = await localOnly(`?limit=4&cursor=${first.nextCursor}`);
  assert.equal(rest.nextCursor, null);
  const all = [...first.keys, ...rest.keys];
  const names = all.map((key) => key.name);
  assert.equal(names.length, 6);
  assert.ok(!names.includes("remote key"), "the mirrored remote key is linked");
  assert.deepEqual(
    new Set(names),
    new Set([...[0, 1, 2, 3, 4].map((i) => `before the link ${i}`), "disabled before the link"]),
  );
  assert.equal(all.find((key) => key.name === "disabled before the link")?.enabled, false);
  assert.equal((await pair.remote.keys()).length, 1, "nothing was pushed by itself");
});

test("bad paging and bad push bodies are 400s; unknown keys 404 with nothing queued", async () => {
  for (const query of ["?limit=0", "?limit=1001", "?cursor=abc", "?colour=red"]) {
    const answer = await pair.local.call("GET", `/local/1/sync/links/${linkId}/local-only${query}`);
    assert.equal(answer.status, 400, `${query}: ${answer.text}`);
  }
  for (const body of [{}, { keys: [] }, { keys: ["nope"] }, { all: false }, { all: true, keys: [] }]) {
    const answer = await push(body);
    assert.equal(answer.status, 400, `${JSON.stringify(body)}: ${answer.text}`);
  }
  const unknown = await push({ keys: ["0123456789ABCDEF0123456789ABCDEF"] });
  assert.equal(unknown.status, 404, unknown.text);
  assert.equal((await outbox(pair.local, linkId)).length, 0);
  const missing = await pair.local.call("GET", "/local/1/sync/links/999/local-only");
  assert.equal(missing.status, 404);
});

test("one key pushed goes out through the outbox; pushing it again queues nothing", async () => {
  const key = (await localOnly()).keys.find((each) => each.name === "before the link 0");
  assert.ok(key);
  assert.equal((await push({ keys: [key.key] })).json.queued, 1);
  assert.equal((await push({ keys: [key.key] })).json.queued, 0, "already linked");
  assert.deepEqual(
    (await outbox(pair.local, linkId)).map((entry) => [entry.key, entry.kind]),
    [[key.key, "create"]],
  );
  const state = await runLink(pair.local, linkId);
  assert.equal(state.pending, 0, JSON.stringify(state));
  const there = byName(await pair.remote.keys()).get("before the link 0");
  assert.ok(there, "created on the remote");
  assert.equal(byName(await pair.local.keys()).get("before the link 0")?.publicApiKey, there.publicApiKey);
  assert.equal((await localOnly()).count, 5);
});

test("all of them: every local-only key is created there, the disabled one disabled", async () => {
  assert.equal((await push({ all: true })).json.queued, 5);
  const state = await runLink(pair.local, linkId);
  assert.equal(state.lastError, null, JSON.stringify(state));
  assert.equal(state.pending, 0);
  const there = byName(await pair.remote.keys());
  assert.equal(there.size, 7);
  const disabled = there.get("disabled before the link");
  assert.equal(disabled?.enabled, false);
  assert.equal(disabled?.validFrom, undefined, "its true window, not the create's");
  assert.equal((await localOnly()).count, 0);
  assert.equal((await linkState(pair.local, linkId)).linkedKeys, 7);
});
