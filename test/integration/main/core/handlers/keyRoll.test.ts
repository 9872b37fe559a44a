import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startKeydeskCore } from "../../../../../electron/main/core.ts";
import type { KeydeskCore } from "../../../../../electron/main/corePorts.ts";
import { SessionVault } from "../../../../../electron/vault/sessionVault.ts";
import { formatApiDateTime, parseApiDateTime } from "../../../../../shared/datetime.ts";
import { predecessorOf, rolledName, successorOf } from "../../../../../shared/keyRollNames.ts";
import {
  addAccount,
  basic,
  clockBehindEnv,
  makeTempDir,
  removeDir,
  request,
  type ServeProcess,
  startServe,
} from "../../../../harness/keyServiceProcess.ts";
import { MemoryClipboard } from "../../../../harness/memoryClipboard.ts";
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

const today = () => new Date().toISOString().slice(0, 10);
/** A name marked by a roll today (the mark carries the roll's second, UTC). */
const markedToday = (base: string) =>
  new RegExp(`^${base} \\(rolled ${today()} \\d{2}:\\d{2}:\\d{2} UTC\\)$`);

test("on the Local profile: the successor takes the key's name, the old key is renamed and ends after the grace", async () => {
  await ok(core, "profiles.activate", { id: "local" });
  const validTo = formatApiDateTime(Date.now() + 31 * 24 * HOUR);
  const old = await ok(core, "keys.create", {
    request: { name: "billing", permissions: ["ALL", "TFA"], allowedIPs: ["10.0.0.0/8"], validTo },
  });
  const before = Date.now();
  const rolled = await ok(core, "keys.roll", { key: old.key, graceMinutes: 24 * 60 });
  const { successor } = rolled;
  assert.equal(successor.name, "billing");
  assert.deepEqual(successor.permissions, ["ALL", "TFA"]);
  assert.deepEqual(successor.allowedIPs, ["10.0.0.0/8"]);
  assert.equal(successor.validTo, validTo, "an end 31 days away is kept by default");
  assert.match(rolled.old.name, markedToday("billing"));
  const found = await ok(core, "keys.page", { query: { name: "billing" } });
  assert.deepEqual(
    found.keys.map((key) => key.key),
    [successor.key],
    "the key's name finds the successor, exactly",
  );
  assert.notEqual(successor.publicApiKey, old.publicApiKey);
  assert.equal(rolled.retirement.state, "shortened");
  const end = parseApiDateTime(rolled.old.validTo as string) as number;
  assert.ok(end >= before + 24 * HOUR && end <= Date.now() + 24 * HOUR, rolled.old.validTo);
  const stored = await ok(core, "keys.get", { key: old.key });
  assert.equal(stored.validTo, rolled.old.validTo);
  assert.equal(stored.name, rolled.old.name);
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
  assert.match(rolledSoon.old.name, markedToday("soon"), "marked all the same");
  assert.equal(rolledSoon.successor.validTo, undefined, "an end an hour away is not copied by default");
});

test("the successor's end: as asked, none when asked, and one at or before now refused before anything is created", async () => {
  const old = await ok(core, "keys.create", {
    request: { name: "ends", validTo: formatApiDateTime(Date.now() + 400 * 24 * HOUR) },
  });
  const end = formatApiDateTime(Date.now() + 7 * 24 * HOUR);
  assert.equal((await ok(core, "keys.roll", { key: old.key, validTo: end })).successor.validTo, end);
  const again = await ok(core, "keys.create", {
    request: { name: "ends again", validTo: formatApiDateTime(Date.now() + 400 * 24 * HOUR) },
  });
  assert.equal((await ok(core, "keys.roll", { key: again.key, validTo: null })).successor.validTo, undefined);
  const count = (await ok(core, "keys.count", {})).count;
  const refused = await fails(core, "keys.roll", {
    key: again.key,
    validTo: formatApiDateTime(Date.now() - 1000),
  });
  assert.equal(refused.messageId, "INVALID_ARGUMENT");
  assert.match(refused.text, /the new key's validTo .* is not in the future/);
  assert.equal((await ok(core, "keys.count", {})).count, count, "nothing was created");
  assert.equal(
    (await fails(core, "keys.roll", { key: again.key, validTo: "tomorrow" })).messageId,
    "INVALID_ARGUMENT",
  );
});

test("rolling again: the name passes on, each old key marked once; an unknown key is NOT_FOUND and creates nothing", async () => {
  const first = await ok(core, "keys.create", { request: { name: "chain" } });
  const once = await ok(core, "keys.roll", { key: first.key });
  const twice = await ok(core, "keys.roll", { key: once.successor.key });
  assert.equal(twice.successor.name, "chain");
  assert.match(twice.old.name, markedToday("chain"));
  const rolledOld = await ok(core, "keys.roll", { key: first.key });
  assert.match(rolledOld.old.name, markedToday("chain"), "a fresh mark, not a second one");
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
  assert.match((await onRemote(old.key)).name as string, markedToday("remote billing"));
  assert.equal((await onRemote(rolled.successor.key)).name, "remote billing");
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
  assert.equal((await onRemote(old.key)).name, "refused", "nor renamed");
  assert.equal(rolled.old.validTo, undefined);

  // Retry: only the update, to the end the roll asked for.
  const postsBefore = proxy.seen.filter((seen) => seen.method === "POST").length;
  const stillRefused = await ok(core, "keys.retire", { key: old.key, retireAt: rolled.retirement.retireAt });
  assert.equal(stillRefused.state, "failed");
  proxy.refuses = () => false;
  const retried = await ok(core, "keys.retire", {
    key: old.key,
    retireAt: rolled.retirement.retireAt,
    rolledAt: rolled.retirement.rolledAt,
  });
  assert.equal(retried.state, "shortened");
  assert.equal(
    (await onRemote(old.key)).name,
    rolledName("refused", parseApiDateTime(rolled.retirement.rolledAt) as number),
  );
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

test("on a remote whose clock is 5 minutes behind: the roll's mark is the remote's time, so the successor and the old key link", async () => {
  const behindDir = await makeTempDir("keydesk-roll-behind-");
  await addAccount(behindDir, "carol", REMOTE_PASSWORD);
  const behind = await startServe({ dataDir: behindDir, env: clockBehindEnv(5 * 60_000) });
  try {
    const profile = await ok(core, "profiles.add", {
      name: "Behind",
      baseUrl: behind.url,
      username: "carol",
      password: REMOTE_PASSWORD,
    });
    await ok(core, "profiles.activate", { id: profile.id });
    const old = await ok(core, "keys.create", { request: { name: "skewed" } });
    const rolled = await ok(core, "keys.roll", { key: old.key, graceMinutes: 60 });
    const answer = await request(behind.url, {
      method: "GET",
      path: "/settings/1/accounts/_/api-keys?include=created",
      headers: { authorization: basic("carol", REMOTE_PASSWORD) },
    });
    assert.equal(answer.status, 200);
    const keys = (answer.json as { apiKeys: { key: string; name: string; createdAt: string }[] }).apiKeys;
    const stored = keys.find((key) => key.key === old.key);
    const successor = keys.find((key) => key.key === rolled.successor.key);
    assert.ok(stored && successor);
    assert.ok(
      (parseApiDateTime(successor.createdAt) as number) < Date.now() - 4 * 60_000,
      `the remote's clock is behind: ${successor.createdAt}`,
    );
    assert.equal(successorOf(stored, keys)?.key, successor.key, "the rolled key names its successor");
    assert.equal(predecessorOf(successor, keys)?.key, old.key, "the successor names the key it replaced");
  } finally {
    await ok(core, "profiles.activate", { id: remoteProfileId });
    await behind.stop("SIGTERM");
    await removeDir(behindDir);
  }
});
