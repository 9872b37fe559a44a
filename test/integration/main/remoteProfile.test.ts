import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startKeydeskCore } from "../../../electron/main/core.ts";
import type { KeydeskCore } from "../../../electron/main/corePorts.ts";
import { vaultAccounts } from "../../../electron/vault/credentialVault.ts";
import { SessionVault } from "../../../electron/vault/sessionVault.ts";
import type { BridgeEvent } from "../../../shared/bridge.ts";
import {
  addAccount,
  makeTempDir,
  removeDir,
  type ServeProcess,
  startServe,
} from "../../harness/keyServiceProcess.ts";
import { MemoryClipboard } from "../../harness/memoryClipboard.ts";
import { allKeys, fails, ok } from "./dispatchAssertions.ts";

/**
 * Remote profiles: the core against a second, real `key-service serve` process. Adding,
 * testing (verdicts for good credentials, a wrong password and a closed port), activating
 * (what keys.page answers follows the active profile), and removing.
 */

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let appDir: string;
let remoteDir: string;
let remote: ServeProcess;
let remoteAccountKey: string;
let core: KeydeskCore;
const vault = new SessionVault("core test: secrets in memory");
const events: BridgeEvent[] = [];
const REMOTE_PASSWORD = "remote-secret-1";

before(async () => {
  appDir = await makeTempDir("keydesk-core-");
  remoteDir = await makeTempDir("keydesk-remote-");
  remoteAccountKey = await addAccount(remoteDir, "alice", REMOTE_PASSWORD);
  remote = await startServe({ dataDir: remoteDir });
  core = await startKeydeskCore({
    dataDir: appDir,
    vault,
    clipboard: new MemoryClipboard(),
    defaultServicePort: 0,
  });
  core.onEvent((event) => events.push(event));
});
after(async () => {
  await core?.close();
  await remote?.stop("SIGTERM");
  await removeDir(appDir);
  await removeDir(remoteDir);
});

test("testing a remote with good credentials says reachable, accepted, and which account", async () => {
  const verdict = await ok(core, "profiles.test", {
    baseUrl: remote.url,
    username: "alice",
    password: REMOTE_PASSWORD,
  });
  assert.equal(verdict.reachable, true);
  assert.equal(verdict.credentialsAccepted, true);
  assert.equal(verdict.accountKey, remoteAccountKey);
  assert.match(verdict.text, /alice/);
});

test("a wrong password: reachable, credentials not accepted", async () => {
  const verdict = await ok(core, "profiles.test", {
    baseUrl: remote.url,
    username: "alice",
    password: "wrong",
  });
  assert.equal(verdict.reachable, true);
  assert.equal(verdict.credentialsAccepted, false);
  assert.equal(verdict.accountKey, undefined);
  assert.match(verdict.text, /refused/);
});

test("a closed port: not reachable, and the text names the URL", async () => {
  const url = `http://127.0.0.1:${await closedPort()}`;
  const verdict = await ok(core, "profiles.test", { baseUrl: url, username: "alice", password: "x" });
  assert.equal(verdict.reachable, false);
  assert.equal(verdict.credentialsAccepted, false);
  assert.ok(verdict.text.includes(url), verdict.text);
});

test("activating a remote profile switches what keys.page answers, and back", async () => {
  await ok(core, "keys.create", { request: { name: "local key" } });
  const profile = await ok(core, "profiles.add", {
    name: "Staging",
    baseUrl: remote.url,
    username: "alice",
    password: REMOTE_PASSWORD,
  });
  assert.equal(profile.kind, "remote");
  assert.equal(profile.active, false);
  assert.equal(await vault.get(vaultAccounts.profilePassword(profile.id)), REMOTE_PASSWORD);
  const settingsText = await readFile(join(appDir, "settings.json"), "utf8");
  assert.ok(settingsText.includes(remote.url), "the profile is in the settings file");
  assert.equal(settingsText.includes(REMOTE_PASSWORD), false, "the password is not");
  assert.equal((await ok(core, "profiles.test", { id: profile.id })).accountKey, remoteAccountKey);

  const names = async () => (await allKeys(core)).map((key) => key.name);
  assert.deepEqual(await names(), ["local key"]);

  const activated = await ok(core, "profiles.activate", { id: profile.id });
  assert.equal(activated.active, true);
  assert.deepEqual(events.at(-1), { type: "profile-changed", activeProfileId: profile.id });
  assert.equal((await ok(core, "service.status")).activeProfileId, profile.id);
  const checked = await ok(core, "profiles.checkActive");
  assert.equal(checked.profile.id, profile.id);
  assert.equal(checked.profile.baseUrl, remote.url);
  assert.deepEqual(
    [checked.verdict.reachable, checked.verdict.credentialsAccepted, checked.verdict.accountKey],
    [true, true, remoteAccountKey],
  );
  assert.deepEqual(await names(), []);
  const created = await ok(core, "keys.create", { request: { name: "remote key" } });
  assert.equal(created.accountKey, remoteAccountKey);
  assert.deepEqual(await names(), ["remote key"]);
  assert.deepEqual(
    (await ok(core, "accounts.list")).map((account) => account.accountKey),
    [remoteAccountKey],
  );
  const refused = await fails(core, "accounts.addSubAccount", { username: "bob", password: "bob-secret" });
  assert.equal(refused.messageId, "NOT_SUPPORTED");

  await ok(core, "profiles.activate", { id: "local" });
  assert.deepEqual(await names(), ["local key"]);
  await ok(core, "profiles.activate", { id: profile.id });
});

test("a wrong stored password reaches the renderer as UNAUTHORIZED; editing it fixes the profile", async () => {
  const [, remoteProfile] = await ok(core, "profiles.list");
  assert.ok(remoteProfile?.active);
  await ok(core, "profiles.edit", { id: remoteProfile.id, password: "not the password" });
  const refused = await fails(core, "keys.page", {});
  assert.equal(refused.messageId, "UNAUTHORIZED");
  await ok(core, "profiles.edit", { id: remoteProfile.id, password: REMOTE_PASSWORD });
  assert.equal((await allKeys(core)).length, 1);
});

test("an unreachable active profile answers UNREACHABLE naming the URL", async () => {
  const url = `http://127.0.0.1:${await closedPort()}`;
  const profile = await ok(core, "profiles.add", {
    name: "Gone",
    baseUrl: url,
    username: "a",
    password: "b",
  });
  await ok(core, "profiles.activate", { id: profile.id });
  const error = await fails(core, "keys.page", {});
  assert.equal(error.messageId, "UNREACHABLE");
  assert.ok(error.text.includes(url), error.text);
  // The header's check says so too, about the active profile (not about the embedded service).
  const checked = await ok(core, "profiles.checkActive");
  assert.equal(checked.profile.name, "Gone");
  assert.equal(checked.verdict.reachable, false);
  assert.ok(checked.verdict.text.includes(url), checked.verdict.text);
  assert.equal((await ok(core, "service.status")).running, true, "the embedded service still runs");
  await ok(core, "profiles.remove", { id: profile.id });
});

test("an action named for a profile that is no longer active is refused as PROFILE_CHANGED, and nothing of it is done", async () => {
  const staging = (await ok(core, "profiles.list")).find((profile) => profile.name === "Staging");
  assert.ok(staging);
  await ok(core, "profiles.activate", { id: "local" });
  const local = await ok(core, "keys.create", { profile: "local", request: { name: "shown on Local" } });
  // The view showed Local's rows; meanwhile the remote became the active profile.
  await ok(core, "profiles.activate", { id: staging.id });
  const key = { profile: "local", accountKey: "_", key: local.key };
  const actions: [string, unknown][] = [
    ["keys.setEnabled", { ...key, enabled: false }],
    ["keys.update", { ...key, request: { name: "renamed" } }],
    ["keys.revealPublicApiKey", key],
    ["clipboard.copyPublicApiKey", key],
    ["keys.roll", { ...key, graceMinutes: 0 }],
    [
      "keys.bulkSetEnabled",
      { profile: "local", accountKey: "_", enabled: false, selection: { keys: [local.key] } },
    ],
    ["keys.create", { profile: "local", request: { name: "meant for Local" } }],
    ["keys.page", { profile: "local", accountKey: "_" }],
    ["accounts.addSubAccount", { profile: "local", username: "carol", password: "carol-secret-1" }],
  ];
  for (const [method, args] of actions) {
    const refused = await fails(core, method, args);
    assert.equal(refused.messageId, "PROFILE_CHANGED", method);
    assert.match(
      refused.text,
      /nothing was done: this view showed the profile “Local”, and “Staging” is the active profile now/,
    );
  }
  // Named for the active profile, the same action goes to it (where that key id is unknown).
  const remoteAnswer = await fails(core, "keys.setEnabled", { ...key, profile: staging.id, enabled: false });
  assert.equal(remoteAnswer.messageId, "NOT_FOUND");
  assert.deepEqual(
    (await allKeys(core)).map((k) => k.name),
    ["remote key"],
    "nothing was created on the remote",
  );
  await ok(core, "profiles.activate", { id: "local" });
  const after = await ok(core, "keys.get", { profile: "local", accountKey: "_", key: local.key });
  assert.deepEqual([after.name, after.enabled], ["shown on Local", true]);
  assert.deepEqual(
    (await allKeys(core)).filter((k) => k.name === "meant for Local" || k.name === "renamed"),
    [],
  );
  assert.deepEqual(
    (await ok(core, "accounts.list")).map((account) => account.username),
    ["owner"],
  );
  await ok(core, "profiles.activate", { id: staging.id });
});

test("removing the active remote profile activates Local and forgets its password", async () => {
  const staging = (await ok(core, "profiles.list")).find((profile) => profile.name === "Staging");
  assert.ok(staging);
  await ok(core, "profiles.activate", { id: staging.id });
  assert.equal(await ok(core, "profiles.remove", { id: staging.id }), null);
  assert.deepEqual(events.at(-1), { type: "profile-changed", activeProfileId: "local" });
  const profiles = await ok(core, "profiles.list");
  assert.deepEqual(
    profiles.map((profile) => [profile.id, profile.active]),
    [["local", true]],
  );
  assert.equal(await vault.get(vaultAccounts.profilePassword(staging.id)), null);
  assert.equal((await fails(core, "profiles.remove", { id: staging.id })).messageId, "NOT_FOUND");
});
