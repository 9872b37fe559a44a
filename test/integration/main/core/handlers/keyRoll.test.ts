import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startKeydeskCore } from "../../../../../electron/main/core.ts";
import type { KeydeskCore } from "../../../../../electron/main/corePorts.ts";
import { MemoryClipboard } from "../../../../../electron/main/memoryClipboard.ts";
import { SessionVault } from "../../../../../electron/vault/sessionVault.ts";
import { formatApiDateTime, parseApiDateTime } from "../../../../../shared/datetime.ts";
import {
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  request,
  type ServeProcess,
  startServe,
} from "../../../../harness/keyServiceProcess.ts";
import { type RefusingProxy, startRefusingProxy } from "../../../../harness/refusingProxy.ts";
import { fails, ok } from "../../dispatchAssertions.ts";

/**
 * Rolling a key through the core: on the Local profile (the embedded service) and on a remote
 * profile (a second `serve` process behind a proxy that can refuse the old key's update).
 */

const HOUR = 3600_000;
let appDir: string;
let remoteDir: string;
let remote: ServeProcess;
let proxy: RefusingProxy;
let core: KeydeskCore;
let remoteProfileId: string;
const REMOTE_PASSWORD = "remote-secret-1";

before(async () => {
  appDir = await makeTempDir("keydesk-roll-");
  remoteDir = await makeTempDir("keydesk-roll-remote-");
  await addAccount(remoteDir, "alice", REMOTE_PASSWORD);
  remote = await startServe({ dataDir: remoteDir });
  proxy = await startRefusingProxy(remote.url);
  core = await startKeydeskCore({
    dataDir: appDir,
    vault: new SessionVault("roll test"),
    clipboard: new MemoryClipboard(),
    defaultServicePort: 0,
  });
  const profile = await ok(core, "profiles.add", {
    name: "Remote",
    baseUrl: proxy.url,
    username: "alice",
    password: REMOTE_PASSWORD,
  });
  remoteProfileId = profile.id;
});
after(async () => {
  await core?.close();
  await proxy?.close();
  await remote?.stop("SIGTERM");
  await removeDir(appDir);
  await removeDir(remoteDir);
});

/** The remote's own view of a key (not through the app). */
async function onRemote(key: string): Promise<Record<string, unknown>> {
  const answer = await request(remote.url, {
    method: "GET",
    path: `/settings/1/accounts/_/api-keys/${key}`,
    headers: { authorization: basic("alice", REMOTE_PASSWORD) },
  });
  assert.equal(answer.status, 200);
  return answer.json as Record<string, unknown>;
}

test("on the Local profile: the successor copies the key, the old key ends after the grace", async () => {
  await ok(core, "profiles.activate", { id: "local" });
  const validTo = formatApiDateTime(Date.now() + 30 * 24 * HOUR);
  const old = await ok(core, "keys.create", {
    request: { name: "billing", permissions: ["ALL", "TFA"], allowedIPs: ["10.0.0.0/8"], validTo },
  });
  const before = Date.now();
  const rolled = await ok(core, "keys.roll", { key: old.key, graceMinutes: 24 * 60 });
  const { successor } = rolled;
  assert.match(successor.name, /^billing \(rolled \d{4}-\d{2}-\d{2}\)$/);
  assert.deepEqual(successor.permissions, ["ALL", "TFA"]);
  assert.deepEqual(successor.allowedIPs, ["10.0.0.0/8"]);
  assert.equal(successor.validTo, validTo);
  assert.notEqual(successor.publicApiKey, old.publicApiKey);
  assert.equal(rolled.retirement.state, "shortened");
  const end = parseApiDateTime(rolled.old.validTo as string) as number;
  assert.ok(end >= before + 24 * HOUR && end <= Date.now() + 24 * HOUR, rolled.old.validTo);
  assert.equal((await ok(core, "keys.get", { key: old.key })).validTo, rolled.old.validTo);
  assert.equal(rolled.old.enabled, true, "the old key keeps working during the grace");
});

test("a grace of 0 ends the old key now; an end already earlier than the grace is kept", async () => {
  const now = await ok(core, "keys.create", { request: { name: "now" } });
  const rolledNow = await ok(core, "keys.roll", { key: now.key, graceMinutes: 0 });
  assert.ok((parseApiDateTime(rolledNow.old.validTo as string) as number) <= Date.now());
  const early = formatApiDateTime(Date.now() + HOUR);
  const soon = await ok(core, "keys.create", { request: { name: "soon", validTo: early } });
  const rolledSoon = await ok(core, "keys.roll", { key: soon.key, graceMinutes: 24 * 60 });
  assert.deepEqual(rolledSoon.retirement, { state: "unchanged", validTo: early });
  assert.equal(rolledSoon.old.validTo, early);
});

test("rolling a rolled key replaces the suffix; an unknown key is NOT_FOUND and creates nothing", async () => {
  const first = await ok(core, "keys.create", { request: { name: "chain" } });
  const once = await ok(core, "keys.roll", { key: first.key });
  const twice = await ok(core, "keys.roll", { key: once.successor.key });
  assert.match(twice.successor.name, /^chain \(rolled \d{4}-\d{2}-\d{2}\)$/);
  const count = (await ok(core, "keys.count", {})).count;
  assert.equal((await fails(core, "keys.roll", { key: "0".repeat(32) })).messageId, "NOT_FOUND");
  assert.equal((await ok(core, "keys.count", {})).count, count);
  assert.equal(
    (await fails(core, "keys.roll", { key: first.key, graceMinutes: -1 })).messageId,
    "INVALID_ARGUMENT",
  );
});

test("a disabled key is not rolled: its successor would be enabled at once", async () => {
  const disabled = await ok(core, "keys.create", { request: { name: "switched off" } });
  await ok(core, "keys.setEnabled", { key: disabled.key, enabled: false });
  const count = (await ok(core, "keys.count", {})).count;
  const refused = await fails(core, "keys.roll", { key: disabled.key });
  assert.equal(refused.messageId, "INVALID_ARGUMENT");
  assert.match(refused.text, /is disabled: a successor would be enabled at once; enable the key first/);
  assert.equal((await ok(core, "keys.count", {})).count, count, "nothing was created");
});

test("on a remote profile: both calls go to the remote, marked as a rotation by the desktop", async () => {
  await ok(core, "profiles.activate", { id: remoteProfileId });
  const old = await ok(core, "keys.create", { request: { name: "remote billing" } });
  proxy.seen.length = 0;
  const rolled = await ok(core, "keys.roll", { key: old.key, graceMinutes: 60 });
  assert.equal(rolled.retirement.state, "shortened");
  assert.equal((await onRemote(old.key)).validTo, rolled.old.validTo);
  assert.equal((await onRemote(rolled.successor.key)).name, rolled.successor.name);
  const writes = proxy.seen.filter((seen) => seen.method !== "GET");
  assert.deepEqual(
    writes.map(({ method, client, action }) => [method, client, action]),
    [
      ["POST", "desktop", "rotate"],
      ["PUT", "desktop", "rotate"],
    ],
  );
});

test("a remote that refuses the update: the successor exists, the old key is unchanged, retry shortens it", async () => {
  const old = await ok(core, "keys.create", { request: { name: "refused" } });
  proxy.refuses = (method) => method === "PUT";
  const rolled = await ok(core, "keys.roll", { key: old.key, graceMinutes: 60 });
  assert.equal(rolled.retirement.state, "failed");
  assert.ok(rolled.retirement.state === "failed");
  assert.match(rolled.retirement.error.text, /refused/);
  assert.equal((await onRemote(rolled.successor.key)).enabled, true, "the successor stays");
  assert.equal((await onRemote(old.key)).validTo, undefined, "the old key was not shortened");
  assert.equal(rolled.old.validTo, undefined);

  // Retry: only the update, to the end the roll asked for.
  const postsBefore = proxy.seen.filter((seen) => seen.method === "POST").length;
  const stillRefused = await ok(core, "keys.retire", { key: old.key, retireAt: rolled.retirement.retireAt });
  assert.equal(stillRefused.state, "failed");
  proxy.refuses = () => false;
  const retried = await ok(core, "keys.retire", { key: old.key, retireAt: rolled.retirement.retireAt });
  assert.equal(retried.state, "shortened");
  assert.equal(
    parseApiDateTime((await onRemote(old.key)).validTo as string),
    parseApiDateTime(rolled.retirement.retireAt),
  );
  assert.equal(
    proxy.seen.filter((seen) => seen.method === "POST").length,
    postsBefore,
    "no second successor",
  );
  assert.equal(proxy.seen.at(-1)?.action, "rotate");
});
