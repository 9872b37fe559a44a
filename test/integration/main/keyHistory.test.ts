import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startKeydeskCore } from "../../../electron/main/core.ts";
import type { KeydeskCore } from "../../../electron/main/corePorts.ts";
import { SessionVault } from "../../../electron/vault/sessionVault.ts";
import { type ForeignRemote, startForeignRemote } from "../../harness/foreignRemote.ts";
import { makeTempDir, removeDir } from "../../harness/keyServiceProcess.ts";
import { MemoryClipboard } from "../../harness/memoryClipboard.ts";
import { ok } from "./dispatchAssertions.ts";

/**
 * keys.history through the core: changes made through the bridge are recorded by the profile's
 * service as made by the desktop app, and read back per key; a service that keeps no audit
 * history (a foreign remote) answers a state, not an error.
 */

let appDir: string;
let core: KeydeskCore;
let foreign: ForeignRemote;

before(async () => {
  appDir = await makeTempDir("keydesk-history-");
  core = await startKeydeskCore({
    dataDir: appDir,
    vault: new SessionVault("history test: secrets in memory"),
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

test("a key's create, edit and disable through the bridge are its history, newest first, via the desktop app", async () => {
  const created = await ok(core, "keys.create", { request: { name: "desk key" } });
  await ok(core, "keys.update", { key: created.key, request: { name: "desk key renamed" } });
  await ok(core, "keys.setEnabled", { key: created.key, enabled: false });
  const history = await ok(core, "keys.history", { key: created.key });
  assert.ok(history.kept);
  assert.equal(history.more, false);
  assert.deepEqual(
    history.entries.map((entry) => [entry.action, entry.channel, entry.actor, entry.key]),
    [
      ["disable", "desktop", "owner", created.key],
      ["update", "desktop", "owner", created.key],
      ["create", "desktop", "owner", created.key],
    ],
  );
  assert.deepEqual(history.entries[1]?.changes, { name: { old: "desk key", new: "desk key renamed" } });
  assert.equal(JSON.stringify(history).includes(created.publicApiKey), false);
});

test("a TFA key made by New TFA key is one change with one history entry: created TFA only, with its name", async () => {
  const made = await ok(core, "keys.createTfa", { name: "checkout 2FA backend" });
  assert.equal(made.name, "checkout 2FA backend");
  assert.deepEqual(made.permissions, ["TFA"]);
  const history = await ok(core, "keys.history", { key: made.key });
  assert.ok(history.kept);
  assert.deepEqual(
    history.entries.map((entry) => [entry.action, entry.channel, entry.key]),
    [["create", "desktop", made.key]],
  );
  assert.equal(JSON.stringify(history).includes(made.publicApiKey), false);
  // As the table's rows are: never used yet, with its creation time.
  assert.equal(made.usage?.total.allowed, 0);
  assert.match(String(made.createdAt), /^\d{4}-\d\d-\d\dT/);
});

test("a service without an audit history answers kept: false", async () => {
  const key = "key_foreign_1";
  foreign.keys.set(key, {
    name: "foreign",
    key,
    publicApiKey: "pk-foreign-1",
    accountKey: "acct-foreign",
    permissions: ["ALL"],
    enabled: true,
  });
  const profile = await ok(core, "profiles.add", {
    name: "Foreign",
    baseUrl: foreign.url,
    username: foreign.username,
    password: foreign.password,
  });
  await ok(core, "profiles.activate", { id: profile.id });
  try {
    assert.deepEqual(await ok(core, "keys.history", { key: "0123456789ABCDEF0123456789ABCDEF" }), {
      kept: false,
    });
  } finally {
    await ok(core, "profiles.activate", { id: "local" });
  }
});
