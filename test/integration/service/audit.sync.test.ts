import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { link, runLink, type SyncPair, startPair } from "../sync/syncFixture.ts";

/**
 * The audit history of sync, with two real serve processes: a pull records each key created or
 * changed here from the remote, a push records each change sent (and the remote records it as
 * a change through `sync`), and a conflict resolved records who settled it and how.
 */

interface Entry {
  actor: string;
  channel: string;
  action: string;
  key: string | null;
  changes: Record<string, { old: unknown; new: unknown }>;
  address: string | null;
}

let pair: SyncPair;
let linkId: number;
before(async () => {
  pair = await startPair();
  linkId = (await link(pair.local, pair.remote.url)).id;
});
after(() => pair.close());

async function entriesOf(side: SyncPair["local"], key: string): Promise<Entry[]> {
  return (await side.ok<{ entries: Entry[] }>("GET", `/local/1/audit?key=${key}`)).entries;
}

const origin = (url: string) => new URL(url).origin;

test("a pull records the keys it mirrors and the fields it takes, as sync from the remote", async () => {
  const { local, remote } = pair;
  const made = await remote.createKey({ name: "made there" });
  await runLink(local, linkId);
  await remote.updateKey(made.key, { name: "renamed there", enabled: false });
  await runLink(local, linkId);
  const entries = await entriesOf(local, made.key);
  assert.deepEqual(
    entries.map(({ actor, channel, action, changes, address }) => ({
      actor,
      channel,
      action,
      changes,
      address,
    })),
    [
      {
        actor: local.username,
        channel: "sync",
        action: "sync-pull",
        changes: { name: { old: "made there", new: "renamed there" }, enabled: { old: true, new: false } },
        address: origin(remote.url),
      },
      {
        actor: local.username,
        channel: "sync",
        action: "sync-pull",
        changes: {
          name: { old: null, new: "made there" },
          permissions: { old: null, new: ["ALL"] },
          enabled: { old: null, new: true },
        },
        address: origin(remote.url),
      },
    ],
  );
});

test("a push records the change sent here, and the remote records it as made through sync", async () => {
  const { local, remote } = pair;
  const made = await local.createKey({ name: "made here" });
  await runLink(local, linkId);
  const remoteCopy = (await remote.keys()).find((key) => key.name === "made here");
  assert.ok(remoteCopy);
  await local.updateKey(made.key, { name: "renamed here" });
  await runLink(local, linkId);

  const here = await entriesOf(local, made.key);
  assert.deepEqual(
    here.map((entry) => [entry.action, entry.channel]),
    [
      ["sync-push", "sync"],
      ["update", "api"],
      ["sync-push", "sync"],
      ["create", "api"],
    ],
  );
  assert.deepEqual(here[0]?.changes, { name: { old: "made here", new: "renamed here" } });
  assert.equal(here[0]?.address, origin(remote.url));

  const there = await entriesOf(remote, remoteCopy.key);
  assert.deepEqual(
    there.map((entry) => [entry.action, entry.channel, entry.actor]),
    [
      ["update", "sync", remote.username],
      ["create", "sync", remote.username],
    ],
  );
  assert.deepEqual(there[0]?.changes, { name: { old: "made here", new: "renamed here" } });
});

test("a conflict resolved records who settled it and the value that won", async () => {
  const { local, remote } = pair;
  const made = await remote.createKey({ name: "disputed" });
  await runLink(local, linkId);
  await remote.updateKey(made.key, { name: "theirs" });
  await local.updateKey(made.key, { name: "mine" });
  await runLink(local, linkId);
  const resolve = await local.call(
    "POST",
    `/local/1/sync/links/${linkId}/keys/${made.key}/resolve`,
    { field: "name", take: "theirs" },
    { "Keydesk-Client": "desktop" },
  );
  assert.equal(resolve.status, 200, resolve.text);
  const [resolved] = await entriesOf(local, made.key);
  assert.deepEqual(
    resolved && {
      actor: resolved.actor,
      channel: resolved.channel,
      action: resolved.action,
      changes: resolved.changes,
    },
    {
      actor: local.username,
      channel: "desktop",
      action: "sync-resolve",
      changes: { name: { old: "mine", new: "theirs" } },
    },
  );
});
