import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startKeydeskCore } from "../../../../../electron/main/core.ts";
import type { KeydeskCore } from "../../../../../electron/main/corePorts.ts";
import { SessionVault } from "../../../../../electron/vault/sessionVault.ts";
import type { BridgeEvent } from "../../../../../shared/bridge.ts";
import { formatApiDateTime } from "../../../../../shared/datetime.ts";
import {
  addAccount,
  makeTempDir,
  removeDir,
  type ServeProcess,
  startServe,
} from "../../../../harness/keyServiceProcess.ts";
import { MemoryClipboard } from "../../../../harness/memoryClipboard.ts";
import { type RefusingProxy, startRefusingProxy } from "../../../../harness/refusingProxy.ts";
import { allKeys, fails, ok } from "../../dispatchAssertions.ts";

/**
 * Bulk enable/disable through the core, against a remote profile (a second `serve` process)
 * behind a proxy that refuses the update of one key in the middle of the selection.
 */

let appDir: string;
let remoteDir: string;
let remote: ServeProcess;
let proxy: RefusingProxy;
let core: KeydeskCore;
const events: BridgeEvent[] = [];

before(async () => {
  appDir = await makeTempDir("keydesk-bulk-");
  remoteDir = await makeTempDir("keydesk-bulk-remote-");
  await addAccount(remoteDir, "alice", "alice-secret");
  remote = await startServe({ dataDir: remoteDir });
  proxy = await startRefusingProxy(remote.url);
  core = await startKeydeskCore({
    dataDir: appDir,
    vault: new SessionVault("bulk test"),
    clipboard: new MemoryClipboard(),
    defaultServicePort: 0,
  });
  core.onEvent((event) => events.push(event));
  const profile = await ok(core, "profiles.add", {
    name: "Remote",
    baseUrl: proxy.url,
    username: "alice",
    password: "alice-secret",
  });
  await ok(core, "profiles.activate", { id: profile.id });
});
after(async () => {
  await core?.close();
  await proxy?.close();
  await remote?.stop("SIGTERM");
  await removeDir(appDir);
  await removeDir(remoteDir);
});

async function makeKeys(prefix: string, count: number): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < count; i++)
    keys.push((await ok(core, "keys.create", { request: { name: `${prefix} ${i}` } })).key);
  return keys;
}

const enabledOf = async (prefix: string) =>
  Object.fromEntries(
    (await allKeys(core, { query: { nameContains: prefix } })).map((key) => [key.name, key.enabled]),
  );

test("disabling named keys with one refused in the middle: that one is listed with its reason, the others are disabled", async () => {
  const keys = await makeKeys("named", 5);
  const refused = keys[2] as string;
  proxy.refuses = (method, path) => method === "PUT" && path.endsWith(refused);
  proxy.seen.length = 0;
  const result = await ok(core, "keys.bulkSetEnabled", { enabled: false, selection: { keys } });
  proxy.refuses = () => false;
  assert.equal(result.selected, 5);
  assert.equal(result.changed, 4);
  assert.equal(result.skipped, 0);
  assert.deepEqual(
    result.failed.map(({ key, name, error }) => [key, name, error.messageId]),
    [[refused, "named 2", "GENERAL_ERROR"]],
  );
  assert.match(result.failed[0]?.error.text ?? "", /refused/);
  assert.deepEqual(await enabledOf("named"), {
    "named 0": false,
    "named 1": false,
    "named 2": true,
    "named 3": false,
    "named 4": false,
  });
  const puts = proxy.seen.filter((seen) => seen.method === "PUT");
  assert.equal(puts.length, 5);
  assert.ok(puts.every((seen) => seen.action === "bulk" && seen.client === "desktop"));
});

test("keys already in the state asked for are skipped and counted; an unknown key is a failure, not a stop", async () => {
  const keys = await makeKeys("mixed", 3);
  await ok(core, "keys.setEnabled", { key: keys[0], enabled: false });
  const unknown = "F".repeat(32);
  const result = await ok(core, "keys.bulkSetEnabled", {
    enabled: false,
    selection: { keys: [...keys, unknown] },
  });
  assert.deepEqual(
    { selected: result.selected, changed: result.changed, skipped: result.skipped },
    { selected: 4, changed: 2, skipped: 1 },
  );
  assert.deepEqual(
    result.failed.map(({ key, name, error }) => [key, name, error.messageId]),
    [[unknown, "", "NOT_FOUND"]],
  );
});

test("all matching a filter, resolved in main, but the keys excepted; progress is reported", async () => {
  const keys = await makeKeys("filtered", 30);
  await makeKeys("other", 2);
  events.length = 0;
  const result = await ok(core, "keys.bulkSetEnabled", {
    enabled: false,
    selection: { query: { nameContains: "FILTERED" }, except: [keys[0]] },
    progressId: "p1",
  });
  assert.deepEqual(
    { selected: result.selected, changed: result.changed, skipped: result.skipped, failed: result.failed },
    { selected: 29, changed: 29, skipped: 0, failed: [] },
  );
  const states = await enabledOf("filtered");
  assert.equal(states["filtered 0"], true);
  assert.equal(Object.values(states).filter((enabled) => !enabled).length, 29);
  assert.ok(Object.values(await enabledOf("other")).every(Boolean), "keys outside the filter untouched");
  const progress = events.filter((event) => event.type === "bulk-progress");
  assert.deepEqual(progress.at(-1), { type: "bulk-progress", progressId: "p1", done: 29, total: 29 });
  // Enabling them again by the same filter.
  const back = await ok(core, "keys.bulkSetEnabled", {
    enabled: true,
    selection: { query: { nameContains: "filtered" } },
  });
  assert.deepEqual({ changed: back.changed, skipped: back.skipped }, { changed: 29, skipped: 1 });
});

test("an enable counts the keys it leaves refused all the same: expired, not valid yet", async () => {
  const now = Date.now();
  const DAY = 24 * 3600_000;
  const make = async (name: string, validity: Record<string, string>) => {
    const key = (await ok(core, "keys.create", { request: { name, ...validity } })).key;
    await ok(core, "keys.setEnabled", { key, enabled: false });
    return key;
  };
  const keys = [
    await make("validity expired", { validTo: formatApiDateTime(now - DAY) }),
    await make("validity later", { validFrom: formatApiDateTime(now + DAY) }),
    await make("validity working", {}),
  ];
  const expiredEnabled = (
    await ok(core, "keys.create", {
      request: { name: "validity expired on", validTo: formatApiDateTime(now - 2 * DAY) },
    })
  ).key;
  const named = await ok(core, "keys.bulkSetEnabled", {
    enabled: true,
    selection: { keys: [...keys, expiredEnabled] },
  });
  assert.deepEqual(
    { changed: named.changed, skipped: named.skipped, stillRefused: named.stillRefused },
    { changed: 3, skipped: 1, stillRefused: { expired: 2, notYetValid: 1 } },
  );
  const off = await ok(core, "keys.bulkSetEnabled", {
    enabled: false,
    selection: { query: { nameContains: "validity" } },
  });
  assert.deepEqual(
    off.stillRefused,
    { expired: 0, notYetValid: 0 },
    "a disable leaves nothing refused to count",
  );
  const matching = await ok(core, "keys.bulkSetEnabled", {
    enabled: true,
    selection: { query: { nameContains: "validity" } },
  });
  assert.deepEqual(
    matching.stillRefused,
    { expired: 2, notYetValid: 1 },
    "all matching: from the listed keys",
  );
});

test("a bad selection is refused before anything is written", async () => {
  assert.equal(
    (await fails(core, "keys.bulkSetEnabled", { enabled: false, selection: { keys: [] } })).messageId,
    "INVALID_ARGUMENT",
  );
  assert.equal(
    (await fails(core, "keys.bulkSetEnabled", { enabled: false, selection: { query: { bogus: 1 } } }))
      .messageId,
    "INVALID_ARGUMENT",
  );
});
