import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { eventually, link, linkState, runLink, type SyncPair, startPair } from "./syncFixture.ts";

let pair: SyncPair;
let linkId: number;
before(async () => {
  pair = await startPair();
});
after(() => pair.close());

const countBy = <T>(items: readonly T[], keyOf: (item: T) => string) => {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(keyOf(item), (counts.get(keyOf(item)) ?? 0) + 1);
  return counts;
};

test("kill -9 of the local side in the middle of a pull: after a restart the pull resumes, nothing doubled", async () => {
  const { local, remote } = pair;
  const total = 3000;
  await remote.createKeys(total);
  linkId = (await link(local, remote.url)).id; // the first run starts at once
  const seen = await eventually("the pull to be under way", async () => {
    const state = await linkState(local, linkId);
    return state.linkedKeys > 0 ? state.linkedKeys : undefined;
  });
  await local.stop("SIGKILL");
  assert.ok(seen < total, `killed mid-pull (${seen} of ${total} keys were in)`);

  await local.start(); // the interrupted run is due, so it starts again at once
  await eventually("the pull to finish after the restart", async () => {
    const state = await linkState(local, linkId);
    return state.linkedKeys === total && state.lastSuccessAt !== null ? state : undefined;
  });
  const localKeys = await local.keys();
  assert.equal(localKeys.length, total);
  assert.equal(countBy(localKeys, (key) => key.publicApiKey).size, total, "every remote key once");
});

test("kill -9 of the local side in the middle of a push: after a restart every change lands once", async () => {
  const { local, remote } = pair;
  const count = 300;
  await local.createKeys(count, (i) => `made here ${i}`); // each queues a create; a push starts a second later
  const seen = await eventually("the push to be under way", async () => {
    const state = await linkState(local, linkId);
    return state.pending < count ? state.pending : undefined;
  });
  await local.stop("SIGKILL");
  assert.ok(seen > 0, `killed mid-push (${count - seen} of ${count} creates were through)`);

  await local.start();
  const done = await runLink(local, linkId);
  assert.equal(done.pending, 0, done.lastError ?? "");
  const remoteMade = (await remote.keys()).filter((key) => key.name.startsWith("made here "));
  const perName = countBy(remoteMade, (key) => key.name);
  assert.equal(perName.size, count, "every local key reached the remote");
  assert.deepEqual([...new Set(perName.values())], [1], "and none twice");
  const localMade = (await local.keys()).filter((key) => key.name.startsWith("made here "));
  assert.equal(localMade.length, count, "no local key doubled either");
  const remotePublic = new Set(remoteMade.map((key) => key.publicApiKey));
  assert.ok(
    localMade.every((key) => remotePublic.has(key.publicApiKey)),
    "each local key took its remote twin's publicApiKey",
  );
});
