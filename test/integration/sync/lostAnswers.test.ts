import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type LossyProxy, startLossyProxy } from "./lossyProxy.ts";
import {
  byName,
  link,
  linkState,
  outbox,
  runLink,
  type SyncPair,
  startPair,
  syncKeys,
} from "./syncFixture.ts";

let pair: SyncPair;
let proxy: LossyProxy;
let linkId: number;
before(async () => {
  pair = await startPair();
  proxy = await startLossyProxy(pair.remote.url);
  linkId = (await link(pair.local, proxy.url)).id;
  await runLink(pair.local, linkId);
});
after(async () => {
  await proxy.close();
  await pair.close();
});

test("the remote applies a create but the answer is lost: the retry creates no second key", async () => {
  const { local, remote } = pair;
  let dropped = 0;
  proxy.dropAnswer = (method, path) => method === "POST" && path.includes("/api-keys") && dropped++ === 0;
  const created = await local.createKey({ name: "answer lost", permissions: ["TFA"] });

  const failed = await runLink(local, linkId);
  assert.equal(dropped, 1, "the create reached the remote once, and its answer was cut");
  assert.equal(failed.state, "backing-off");
  assert.equal(
    (await remote.keys()).filter((key) => key.name === "answer lost").length,
    1,
    "the remote did create it",
  );
  const [entry] = await outbox(local, linkId);
  assert.equal(entry?.attempts, 1);

  const synced = await runLink(local, linkId);
  assert.equal(synced.lastError, null);
  assert.equal(synced.pending, 0);
  const onRemote = (await remote.keys()).filter((key) => key.name === "answer lost");
  assert.equal(onRemote.length, 1, "still exactly one key on the remote");
  const onLocal = byName(await local.keys()).get("answer lost");
  assert.equal(onLocal?.key, created.key);
  assert.equal(
    onLocal?.publicApiKey,
    onRemote[0]?.publicApiKey,
    "the local key is linked to that remote key",
  );
  assert.deepEqual(await syncKeys(local, linkId), []);
});

test("when the remote's list does not show the lost create yet, the retry's Idempotency-Key makes the remote answer the first key", async () => {
  const { local, remote } = pair;
  let dropped = 0;
  proxy.dropAnswer = (method, path) => method === "POST" && path.includes("/api-keys") && dropped++ === 0;
  const hide = (json: unknown) => {
    const list = json as { apiKeys?: { name: string }[] };
    return list.apiKeys ? { apiKeys: list.apiKeys.filter((key) => key.name !== "lagging list") } : json;
  };
  proxy.rewrite = (method, path, json) =>
    method === "GET" && path.includes("/api-keys") ? hide(json) : json;
  await local.createKey({ name: "lagging list" });
  await runLink(local, linkId);
  const synced = await runLink(local, linkId);
  proxy.rewrite = (_method, _path, json) => json;
  assert.equal(synced.pending, 0);
  const posts = proxy.seen.filter((line) => line.startsWith("POST"));
  assert.equal(posts.length, 3, "two attempts of this create were sent (after the earlier test's one)");
  const onRemote = (await remote.keys()).filter((key) => key.name === "lagging list");
  assert.equal(onRemote.length, 1, "the remote created it once");
  assert.equal(byName(await local.keys()).get("lagging list")?.publicApiKey, onRemote[0]?.publicApiKey);
});

test("an update whose answer is lost is sent again and lands once", async () => {
  const { local, remote } = pair;
  const target = byName(await local.keys()).get("answer lost");
  assert.ok(target);
  let dropped = 0;
  proxy.dropAnswer = (method) => method === "PUT" && dropped++ === 0;
  await local.updateKey(target.key, { name: "renamed, answer lost" });
  await runLink(local, linkId);
  assert.equal((await linkState(local, linkId)).pending, 1);
  await runLink(local, linkId);
  assert.equal((await linkState(local, linkId)).pending, 0);
  assert.equal(byName(await remote.keys()).get("renamed, answer lost")?.publicApiKey, target.publicApiKey);
});
