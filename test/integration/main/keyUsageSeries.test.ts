import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startKeydeskCore } from "../../../electron/main/core.ts";
import type { KeydeskCore } from "../../../electron/main/corePorts.ts";
import { SessionVault } from "../../../electron/vault/sessionVault.ts";
import { type ForeignRemote, startForeignRemote } from "../../harness/foreignRemote.ts";
import { makeTempDir, removeDir, request } from "../../harness/keyServiceProcess.ts";
import { MemoryClipboard } from "../../harness/memoryClipboard.ts";
import { fails, ok } from "./dispatchAssertions.ts";

/**
 * keys.usageSeries through the core: a key's calls per hour and per day from the profile's own
 * service; a service that records none (a foreign remote) answers a state, not an error; named
 * for a profile no longer active it is refused like every key read.
 */

let appDir: string;
let core: KeydeskCore;
let foreign: ForeignRemote;

before(async () => {
  appDir = await makeTempDir("keydesk-usage-series-");
  core = await startKeydeskCore({
    dataDir: appDir,
    vault: new SessionVault("usage series test: secrets in memory"),
    clipboard: new MemoryClipboard(),
    defaultServicePort: 0,
  });
  foreign = await startForeignRemote();
});
after(async () => {
  await core?.close();
  await foreign?.close();
  if (appDir) await removeDir(appDir);
});

test("calls made with a key are in its series at once: 48 hours and 30 days, the current ones last", async () => {
  const key = await ok(core, "keys.create", { profile: "local", request: { name: "charted" } });
  const baseUrl = (await ok(core, "profiles.list")).find((profile) => profile.kind === "local")?.baseUrl;
  for (let index = 0; index < 2; index++) {
    const answer = await request(baseUrl as string, {
      path: "/2fa/2/applications",
      authorization: `App ${key.publicApiKey}`,
    });
    assert.equal(answer.status, 200, answer.text);
  }
  const series = await ok(core, "keys.usageSeries", { profile: "local", accountKey: "_", key: key.key });
  assert.ok(series.recorded);
  assert.equal(series.hours.length, 48);
  assert.equal(series.days.length, 30);
  const allowed = (buckets: { allowed: number }[]) =>
    buckets.reduce((sum, bucket) => sum + bucket.allowed, 0);
  assert.equal(allowed(series.hours), 2);
  assert.equal(allowed(series.days), 2);
  assert.match(series.hours.at(-1)?.start ?? "", /^\d{4}-\d\d-\d\dT\d\d:00:00\.000\+0000$/);
  assert.match(series.days.at(-1)?.start ?? "", /^\d{4}-\d\d-\d\dT00:00:00\.000\+0000$/);
  assert.equal(JSON.stringify(series).includes(key.publicApiKey), false);
});

test("a foreign service answers recorded: false; a profile no longer active is PROFILE_CHANGED", async () => {
  const local = await ok(core, "keys.create", { profile: "local", request: { name: "local key" } });
  const profile = await ok(core, "profiles.add", {
    name: "Foreign",
    baseUrl: foreign.url,
    username: foreign.username,
    password: foreign.password,
  });
  await ok(core, "profiles.activate", { id: profile.id });
  try {
    const key = "0123456789ABCDEF0123456789ABCDEF";
    assert.deepEqual(await ok(core, "keys.usageSeries", { profile: profile.id, accountKey: "_", key }), {
      recorded: false,
    });
    const refused = await fails(core, "keys.usageSeries", {
      profile: "local",
      accountKey: "_",
      key: local.key,
    });
    assert.equal(refused.messageId, "PROFILE_CHANGED");
  } finally {
    await ok(core, "profiles.activate", { id: "local" });
  }
});
