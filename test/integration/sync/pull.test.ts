import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { request } from "../../harness/keyServiceProcess.ts";
import {
  byName,
  comparable,
  eventually,
  link,
  linkState,
  PASSWORD,
  runLink,
  type SyncPair,
  startPair,
  syncKeys,
} from "./syncFixture.ts";

let pair: SyncPair;
before(async () => {
  pair = await startPair();
});
after(() => pair.close());

test("a pull mirrors 1,000 remote keys, publicApiKey included, and a second pull changes nothing", async () => {
  const { local, remote } = pair;
  await remote.createKeys(1000);
  await remote.createKey({
    name: "restricted",
    permissions: ["TFA"],
    allowedIPs: ["10.1.2.0/24", "2001:db8::1"],
    validFrom: "2026-01-01T00:00:00.000+0100",
    validTo: "2030-01-01T00:00:00.000+0000",
  });
  const linked = await link(local, remote.url);
  const state = await runLink(local, linked.id);
  assert.equal(state.lastError, null);
  assert.equal(state.linkedKeys, 1001);
  assert.equal(state.pending, 0);

  const remoteKeys = await remote.keys();
  const localKeys = await local.keys();
  assert.equal(localKeys.length, 1001);
  const mirrored = byName(localKeys);
  for (const key of remoteKeys) {
    assert.deepEqual(comparable(mirrored.get(key.name) as never), comparable(key), `key ${key.name}`);
    assert.equal(mirrored.get(key.name)?.key, key.key, "the remote's key id is kept where free");
  }

  const again = await runLink(local, linked.id);
  assert.equal(again.lastError, null);
  assert.equal((await local.keys()).length, 1001, "no key doubled");
  assert.deepEqual(await syncKeys(local, linked.id), [], "nothing pending, conflicting or missing");
  assert.equal(again.state, "idle");
  assert.ok(again.lastSuccessAt && again.nextRunAt, "last sync and next run are shown");
});

test("a mirrored key works against the local service with the remote's publicApiKey", async () => {
  const { local, remote } = pair;
  const [key] = await remote.keys();
  assert.ok(key);
  const res = await request(local.url, {
    path: "/2fa/2/applications",
    authorization: `App ${key.publicApiKey}`,
  });
  assert.equal(res.status, 200, res.text);
  const other = await request(local.url, { path: "/2fa/2/applications", authorization: "App not-a-key" });
  assert.equal(other.status, 401);
  assert.equal((await linkState(local, 1)).conflicts, 0);
});

test("a mirrored key keeps its creation time on the remote (asked with include=created), never the pull's time", async () => {
  const { local, remote } = pair;
  type WithCreated = { key: string; createdAt: string | null };
  const created = "/settings/1/accounts/_/api-keys?include=created";
  const remoteTimes = new Map(
    (await remote.ok<{ apiKeys: WithCreated[] }>("GET", created)).apiKeys.map((key) => [
      key.key,
      key.createdAt,
    ]),
  );
  const listed = await local.ok<{ apiKeys: WithCreated[] }>("GET", created);
  assert.equal(listed.apiKeys.length, 1001);
  for (const key of listed.apiKeys) {
    assert.match(String(key.createdAt), /^\d{4}-\d\d-\d\dT/);
    assert.equal(key.createdAt, remoteTimes.get(key.key), `${key.key}: the remote's creation time`);
  }
});

test("the remote's password is kept sealed: not in the local database files, logs or answers", async () => {
  const { local } = pair;
  const secret = PASSWORD;
  const files = (await readdir(local.dataDir)).filter((name) => name.startsWith("keydesk.db"));
  assert.ok(files.includes("keydesk.db"));
  for (const name of files) {
    const content = await readFile(join(local.dataDir, name));
    assert.equal(content.indexOf(secret), -1, `${name} holds the password in clear`);
  }
  const answers = [
    await local.call("GET", "/local/1/sync/links"),
    await local.call("GET", "/local/1/sync/links/1"),
  ];
  for (const answer of answers) assert.equal(answer.text.includes(secret), false);
  assert.equal(local.process?.stderr().includes(secret), false);
});

test("the link's interval runs it without Sync now", async () => {
  const { local, remote } = pair;
  const [target] = await remote.keys();
  assert.ok(target);
  const shortened = await local.ok<{ intervalSeconds: number; nextRunAt: string }>(
    "PUT",
    "/local/1/sync/links/1",
    {
      intervalSeconds: 10,
    },
  );
  assert.equal(shortened.intervalSeconds, 10);
  assert.ok(Date.parse(shortened.nextRunAt) <= Date.now() + 10_000, "the planned run moved closer");
  await remote.updateKey(target.key, { name: "renamed on the remote" });
  const mirrored = await eventually(
    "the interval run to pull the change",
    async () => {
      const found = (await local.keys()).find((key) => key.key === target.key);
      return found?.name === "renamed on the remote" ? found : undefined;
    },
    25_000,
  );
  assert.equal(mirrored.publicApiKey, target.publicApiKey);
});
