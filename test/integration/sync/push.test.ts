import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  byName,
  comparable,
  eventually,
  link,
  linkState,
  outbox,
  runLink,
  type SyncPair,
  startPair,
  syncKeys,
} from "./syncFixture.ts";

let pair: SyncPair;
let linkId: number;
before(async () => {
  pair = await startPair();
  await pair.remote.createKeys(5);
  linkId = (await link(pair.local, pair.remote.url)).id;
  await runLink(pair.local, linkId);
});
after(() => pair.close());

test("changes made while the remote is down wait in the outbox, survive a restart, and go out in order when it is back", async () => {
  const { local, remote } = pair;
  const [first, second] = (await local.keys()).filter((key) => key.name.startsWith("key "));
  assert.ok(first && second);
  await remote.stop();

  await local.updateKey(first.key, { name: "renamed offline" });
  await local.updateKey(second.key, { enabled: false, allowedIPs: ["192.0.2.0/24"] });
  await local.updateKey(first.key, { validTo: "2031-01-01T00:00:00.000+0000" });
  const created = await local.createKey({ name: "made offline", permissions: ["TFA"] });

  const failed = await runLink(local, linkId);
  assert.equal(failed.state, "backing-off");
  assert.match(failed.lastError ?? "", /could not reach/);
  assert.equal(failed.pending, 4);
  const queued = await outbox(local, linkId);
  assert.deepEqual(
    queued.map((entry) => [entry.key, entry.kind, entry.fields]),
    [
      [first.key, "update", ["name"]],
      [second.key, "update", ["allowedIPs", "enabled"]],
      [first.key, "update", ["validTo"]],
      [created.key, "create", ["name", "allowedIPs", "permissions", "validFrom", "validTo", "enabled"]],
    ],
  );

  await local.stop();
  await local.start();
  assert.equal((await outbox(local, linkId)).length, 4, "the outbox survived the restart");

  await remote.start();
  // No "sync now": the backoff retry is what notices the remote is back. Its run is over (idle)
  // once the pull after the push is done too: the outbox empties before that.
  await eventually("the queued changes to go out and the run to end", async () => {
    const state = await linkState(local, linkId);
    return state.pending === 0 && state.lastError === null && state.state === "idle" ? state : undefined;
  });

  const remoteKeys = byName(await remote.keys());
  assert.equal(remoteKeys.get("renamed offline")?.validTo, "2031-01-01T00:00:00.000+0000");
  assert.equal(remoteKeys.get(second.name)?.enabled, false);
  assert.deepEqual(remoteKeys.get(second.name)?.allowedIPs, ["192.0.2.0/24"]);
  const pushed = remoteKeys.get("made offline");
  assert.ok(pushed, "the key made offline was created on the remote");
  assert.deepEqual(pushed.permissions, ["TFA"]);
  const localNow = byName(await local.keys());
  assert.deepEqual(
    comparable(localNow.get("made offline") as never),
    comparable(pushed),
    "the local key took the remote's publicApiKey",
  );
  assert.equal(localNow.get("made offline")?.key, created.key, "the local key keeps its own id");
  assert.equal((await remote.keys()).length, 6);
});

test("a disabled key created locally is created on the remote and then disabled there", async () => {
  const { local, remote } = pair;
  const created = await local.createKey({ name: "created then disabled" });
  await local.updateKey(created.key, { enabled: false });
  await runLink(local, linkId);
  const onRemote = byName(await remote.keys()).get("created then disabled");
  assert.equal(onRemote?.enabled, false);
  assert.deepEqual(await syncKeys(local, linkId), []);
});

test("changes to different fields on both sides merge", async () => {
  const { local, remote } = pair;
  const target = byName(await local.keys()).get("key 2");
  assert.ok(target);
  await remote.updateKey(target.key, { name: "key 2 (remote name)" });
  await local.updateKey(target.key, { permissions: ["TFA"] });
  const state = await runLink(local, linkId);
  assert.equal(state.conflicts, 0);
  const onRemote = byName(await remote.keys()).get("key 2 (remote name)");
  const onLocal = byName(await local.keys()).get("key 2 (remote name)");
  assert.deepEqual(onRemote?.permissions, ["TFA"]);
  assert.deepEqual(onLocal && comparable(onLocal), onRemote && comparable(onRemote));
});

test("the same field changed on both sides is a conflict: nothing is overwritten until the user decides", async () => {
  const { local, remote } = pair;
  const target = byName(await local.keys()).get("key 3");
  assert.ok(target);
  await remote.updateKey(target.key, { name: "theirs", validFrom: "2026-06-01T00:00:00.000+0000" });
  await local.updateKey(target.key, { name: "mine", enabled: false });
  const state = await runLink(local, linkId);
  assert.equal(state.conflicts, 1);
  const [conflicted] = await syncKeys(local, linkId);
  assert.equal(conflicted?.state, "conflict");
  const [name] = conflicted?.conflicts ?? [];
  assert.deepEqual([name?.field, name?.mine, name?.theirs], ["name", "mine", "theirs"]);
  // Who made each side and when: the local change from the local history, the remote's from the
  // remote's (a Keydesk remote keeps one; the key-management API itself says neither).
  const renameOf = async (side: typeof local) =>
    (
      await side.ok<{ entries: { time: string; action: string; changes: Record<string, unknown> }[] }>(
        "GET",
        `/local/1/audit?key=${target.key}&limit=20`,
      )
    ).entries.find((entry) => "name" in entry.changes && !entry.action.startsWith("sync-"));
  const localChange = await renameOf(local);
  const remoteChange = await renameOf(remote);
  assert.ok(localChange && remoteChange);
  assert.deepEqual(name?.mineChange, { by: "owner", at: localChange?.time });
  assert.equal(name?.theirsChange?.by, "team");
  assert.equal(name?.theirsChange?.at, remoteChange?.time);
  assert.ok(name?.theirsChange?.seenAt, "when the pull saw it");

  const remoteKey = (await remote.keys()).find((key) => key.key === target.key);
  const localKey = (await local.keys()).find((key) => key.key === target.key);
  assert.equal(remoteKey?.name, "theirs", "the remote's name is untouched");
  assert.equal(localKey?.name, "mine", "the local name is untouched");
  assert.equal(remoteKey?.enabled, false, "the other field changed here still went out");
  assert.equal(localKey?.validFrom, "2026-06-01T00:00:00.000+0000", "the other field changed there came in");

  const waiting = (await outbox(local, linkId)).filter((entry) => entry.key === target.key);
  assert.deepEqual(
    waiting.map((entry) => [entry.fields, entry.heldFields]),
    [[["name"], ["name"]]],
    "the local rename is held back by the conflict",
  );

  // Another run keeps both sides as they are.
  await runLink(local, linkId);
  assert.equal((await remote.keys()).find((key) => key.key === target.key)?.name, "theirs");

  await local.ok("POST", `/local/1/sync/links/${linkId}/keys/${target.key}/resolve`, {
    field: "name",
    take: "mine",
  });
  await runLink(local, linkId);
  assert.equal((await remote.keys()).find((key) => key.key === target.key)?.name, "mine");
  assert.equal((await local.keys()).find((key) => key.key === target.key)?.name, "mine");
  assert.deepEqual(await syncKeys(local, linkId), []);
});

test("keep mine releases the held change: the key has one outbox entry, before and after, and it goes out", async () => {
  const { local, remote } = pair;
  const target = byName(await local.keys()).get("mine");
  assert.ok(target);
  await remote.updateKey(target.key, { name: "theirs again" });
  await local.updateKey(target.key, { name: "mine again" });
  await runLink(local, linkId);
  // Paused, nothing is pushed: the outbox is seen as the resolve left it.
  await local.ok("PUT", `/local/1/sync/links/${linkId}`, { paused: true });
  const ofKey = async () =>
    (await outbox(local, linkId))
      .filter((entry) => entry.key === target.key)
      .map((entry) => [entry.fields, entry.heldFields]);
  assert.deepEqual(await ofKey(), [[["name"], ["name"]]]);

  await local.ok("POST", `/local/1/sync/links/${linkId}/keys/${target.key}/resolve`, {
    field: "name",
    take: "mine",
  });
  assert.deepEqual(await ofKey(), [[["name"], []]], "one entry, no longer held");

  await local.ok("PUT", `/local/1/sync/links/${linkId}`, { paused: false });
  await runLink(local, linkId);
  assert.equal((await remote.keys()).find((key) => key.key === target.key)?.name, "mine again");
  assert.deepEqual(await ofKey(), []);
});

test("take remote writes the remote's value locally and drops the local change", async () => {
  const { local, remote } = pair;
  const target = byName(await local.keys()).get("key 4");
  assert.ok(target);
  await remote.updateKey(target.key, { allowedIPs: ["198.51.100.7"] });
  await local.updateKey(target.key, { allowedIPs: ["203.0.113.0/24"] });
  await runLink(local, linkId);
  const resolved = await local.ok<{ state: string }>(
    "POST",
    `/local/1/sync/links/${linkId}/keys/${target.key}/resolve`,
    { field: "allowedIPs", take: "theirs" },
  );
  assert.equal(resolved.state, "synced");
  assert.deepEqual((await local.keys()).find((key) => key.key === target.key)?.allowedIPs, ["198.51.100.7"]);
  assert.equal((await outbox(local, linkId)).length, 0);
  await runLink(local, linkId);
  assert.deepEqual((await remote.keys()).find((key) => key.key === target.key)?.allowedIPs, ["198.51.100.7"]);

  const again = await local.call("POST", `/local/1/sync/links/${linkId}/keys/${target.key}/resolve`, {
    field: "allowedIPs",
    take: "theirs",
  });
  assert.equal(again.status, 409, "no conflict left to resolve");
});
