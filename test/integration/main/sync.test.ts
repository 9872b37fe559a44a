import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startKeydeskCore } from "../../../electron/main/core.ts";
import type { KeydeskCore } from "../../../electron/main/corePorts.ts";
import { SessionVault } from "../../../electron/vault/sessionVault.ts";
import type { BridgeEvent, ProfileDto } from "../../../shared/bridge.ts";
import type { SyncLinkDto } from "../../../shared/sync.ts";
import { eventually } from "../../harness/eventually.ts";
import {
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  request,
  runCli,
  type ServeProcess,
  startServe,
} from "../../harness/keyServiceProcess.ts";
import { MemoryClipboard } from "../../harness/memoryClipboard.ts";
import { checkAnswersOf } from "../../harness/serviceContract.ts";
import { allKeys, fails, ok } from "./dispatchAssertions.ts";

/**
 * The sync.* bridge handlers: the core (with its embedded service and sync engine) linked to a
 * second, real `key-service serve` process through a remote profile. Linking, Sync now, remote
 * keys mirrored locally, a conflict resolved both ways, pause and resume, the outbox, a refused
 * password (the link pauses) fixed by editing the profile, and removal.
 */

const REMOTE_USER = "alice";
let remotePassword = "remote-secret-1";
let appDir: string;
let remoteDir: string;
let remote: ServeProcess;
let remoteAccountKey: string;
let core: KeydeskCore;
let staging: ProfileDto;
let link: SyncLinkDto;
let local: { baseUrl: string; username: string; password: string };
let stopCheckingLocal: (() => void) | undefined;
const vault = new SessionVault("sync test: secrets in memory");
const events: BridgeEvent[] = [];

const remoteApi = (path: string, method = "GET", body?: unknown) =>
  request(remote.url, { method, path, authorization: basic(REMOTE_USER, remotePassword), body });
const localApi = (path: string, method = "GET", body?: unknown) =>
  request(local.baseUrl, { method, path, authorization: basic(local.username, local.password), body });

async function remoteKey(name: string): Promise<{ key: string; name: string }> {
  const created = await remoteApi("/settings/1/accounts/_/api-keys", "POST", { name });
  assert.equal(created.status, 200, created.text);
  return created.json as { key: string; name: string };
}

const linkNow = async () => {
  const found = (await ok(core, "sync.links.list")).find((each) => each.id === link.id);
  assert.ok(found, "the link is listed");
  return found;
};

before(async () => {
  appDir = await makeTempDir("keydesk-sync-core-");
  remoteDir = await makeTempDir("keydesk-sync-remote-");
  remoteAccountKey = await addAccount(remoteDir, REMOTE_USER, remotePassword);
  await addAccount(remoteDir, "alice-team", "team-secret-1", REMOTE_USER);
  remote = await startServe({ dataDir: remoteDir });
  core = await startKeydeskCore({
    dataDir: appDir,
    vault,
    clipboard: new MemoryClipboard(),
    defaultServicePort: 0,
  });
  core.onEvent((event) => events.push(event));
  local = await ok(core, "profiles.revealLocalCredentials");
  // The embedded service runs in this process, not through startServe: its answers are checked too.
  stopCheckingLocal = await checkAnswersOf(local.baseUrl);
  staging = await ok(core, "profiles.add", {
    name: "Staging",
    baseUrl: remote.url,
    username: REMOTE_USER,
    password: remotePassword,
  });
});
after(async () => {
  stopCheckingLocal?.();
  await core?.close();
  await remote?.stop("SIGTERM");
  await removeDir(appDir);
  await removeDir(remoteDir);
});

test("the pickers: the Local service's accounts, and the remote profile's own account and sub-accounts", async () => {
  const accounts = await ok(core, "sync.localAccounts");
  assert.deepEqual(
    accounts.map((account) => [account.username, account.parentAccountKey]),
    [["owner", null]],
  );
  const remoteAccounts = await ok(core, "sync.remoteAccounts", { profileId: staging.id });
  assert.deepEqual(
    remoteAccounts.map((account) => account.username),
    [REMOTE_USER, "alice-team"],
  );
  assert.equal(remoteAccounts[0]?.accountKey, remoteAccountKey);
  assert.equal(
    (await fails(core, "sync.remoteAccounts", { profileId: "local" })).messageId,
    "INVALID_ARGUMENT",
  );
  assert.deepEqual(await ok(core, "sync.links.list"), []);
});

test("a link is made from a remote profile: its password goes along but never comes back", async () => {
  await remoteKey("remote billing");
  await remoteKey("remote reports");
  const refused = await fails(core, "sync.links.create", { profileId: "local" });
  assert.equal(refused.messageId, "INVALID_ARGUMENT");
  assert.ok(refused.validationErrors?.profileId);
  const tooOften = await fails(core, "sync.links.create", { profileId: staging.id, intervalSeconds: 1 });
  assert.equal(tooOften.messageId, "INVALID_ARGUMENT");
  assert.ok(tooOften.validationErrors?.intervalSeconds);

  events.length = 0;
  link = await ok(core, "sync.links.create", { profileId: staging.id, intervalSeconds: 600 });
  assert.equal(link.remote.baseUrl.replace(/\/+$/, ""), remote.url);
  assert.equal(link.remote.username, REMOTE_USER);
  assert.equal(link.remote.accountKey, "_");
  assert.equal(link.intervalSeconds, 600);
  assert.ok(!JSON.stringify(link).includes(remotePassword), "the password is not answered");
  const changed = events.find((event) => event.type === "sync-changed");
  assert.ok(changed, "a sync-changed event tells the renderer");
  assert.deepEqual(
    changed.links.map((each) => each.id),
    [link.id],
  );

  const again = await fails(core, "sync.links.create", { profileId: staging.id });
  assert.equal(again.messageId, "CONFLICT");
});

test("Sync now pulls the remote keys into the local account, publicApiKey included", async () => {
  const after = await ok(core, "sync.run", { id: link.id });
  assert.equal(after.lastError, null);
  assert.notEqual(after.lastSuccessAt, null);
  assert.equal(after.linkedKeys, 2);
  assert.equal(after.conflicts, 0);
  const names = (await allKeys(core)).map((key) => key.name).sort();
  assert.deepEqual(names, ["remote billing", "remote reports"]);
  // sync.keys lists the keys that need attention (synced ones may be left out): none now.
  const keys = await ok(core, "sync.keys", { id: link.id });
  assert.deepEqual(
    keys.filter((key) => key.state !== "synced"),
    [],
  );
  const remoteKeys = (await remoteApi("/settings/1/accounts/_/api-keys")).json as {
    apiKeys: { key: string; name: string; publicApiKey: string }[];
  };
  const localKeys = await allKeys(core);
  for (const remoteKey of remoteKeys.apiKeys) {
    const mirrored = localKeys.find((each) => each.name === remoteKey.name);
    assert.ok(mirrored, `${remoteKey.name} is mirrored`);
    const revealed = await ok(core, "keys.revealPublicApiKey", { key: mirrored.key });
    assert.equal(revealed.publicApiKey, remoteKey.publicApiKey);
  }
});

test("the same field changed on both sides is a conflict; Take remote and Keep mine resolve it", async () => {
  const mirrored = (await allKeys(core)).find((key) => key.name === "remote billing");
  const listed = (await remoteApi("/settings/1/accounts/_/api-keys")).json as {
    apiKeys: { key: string; name: string }[];
  };
  const original = listed.apiKeys.find((key) => key.name === "remote billing");
  assert.ok(mirrored && original);
  const billing = { key: mirrored.key, remoteKey: original.key };
  await ok(core, "sync.links.update", { id: link.id, paused: true });
  assert.equal((await linkNow()).pausedReason, "user");
  assert.equal(
    (
      await remoteApi(`/settings/1/accounts/_/api-keys/${billing.remoteKey}`, "PUT", {
        name: "billing (theirs)",
      })
    ).status,
    200,
  );
  await ok(core, "keys.update", {
    key: billing.key,
    request: { name: "billing (mine)", allowedIPs: ["10.0.0.0/8"] },
  });
  const outbox = await ok(core, "sync.outbox", { id: link.id });
  assert.equal(outbox.length, 1, JSON.stringify(outbox));
  assert.equal(outbox[0]?.kind, "update");
  assert.deepEqual([...(outbox[0]?.fields ?? [])].sort(), ["allowedIPs", "name"]);
  assert.equal(outbox[0]?.failed, false);

  const resumed = await ok(core, "sync.links.update", { id: link.id, paused: false });
  assert.notEqual(resumed.pausedReason, "user");
  const run = await ok(core, "sync.run", { id: link.id });
  assert.equal(run.conflicts, 1, JSON.stringify(run));
  const conflicted = (await ok(core, "sync.keys", { id: link.id })).find((key) => key.key === billing.key);
  assert.equal(conflicted?.state, "conflict");
  assert.equal(conflicted?.remoteKey, billing.remoteKey);
  assert.equal(conflicted?.remoteKey, billing.remoteKey);
  assert.deepEqual(
    conflicted?.conflicts.map(({ field, mine, theirs }) => ({ field, mine, theirs })),
    [{ field: "name", mine: "billing (mine)", theirs: "billing (theirs)" }],
  );
  // Who made each side crosses the bridge too: the local account, and the remote's user as its
  // audit history names them.
  const [origins] = conflicted?.conflicts ?? [];
  assert.equal(origins?.mineChange?.by, local.username);
  assert.equal(origins?.theirsChange?.by, REMOTE_USER);
  assert.ok(origins?.mineChange?.at && origins.theirsChange?.at && origins.theirsChange.seenAt);
  // The other field merged: the remote has the IPs; neither side's name was overwritten.
  const remoteNow = (await remoteApi(`/settings/1/accounts/_/api-keys/${billing.remoteKey}`)).json as {
    name: string;
    allowedIPs?: string[];
  };
  assert.equal(remoteNow.name, "billing (theirs)");
  assert.deepEqual(remoteNow.allowedIPs, ["10.0.0.0/8"]);
  assert.equal((await ok(core, "keys.get", { key: billing.key })).name, "billing (mine)");

  const resolved = await ok(core, "sync.resolve", {
    id: link.id,
    key: billing.key,
    field: "name",
    take: "theirs",
  });
  assert.deepEqual(resolved.conflicts, []);
  assert.equal((await ok(core, "keys.get", { key: billing.key })).name, "billing (theirs)");

  // Both sides again; this time the local name wins and reaches the remote.
  await ok(core, "sync.links.update", { id: link.id, paused: true });
  await remoteApi(`/settings/1/accounts/_/api-keys/${billing.remoteKey}`, "PUT", {
    name: "billing v3 (theirs)",
  });
  await ok(core, "keys.update", { key: billing.key, request: { name: "billing v3 (mine)" } });
  await ok(core, "sync.links.update", { id: link.id, paused: false });
  assert.equal((await ok(core, "sync.run", { id: link.id })).conflicts, 1);
  const mine = await ok(core, "sync.resolve", { id: link.id, key: billing.key, field: "name", take: "mine" });
  assert.deepEqual(mine.conflicts, []);
  await eventually("the kept name on the remote", async () => {
    await ok(core, "sync.run", { id: link.id });
    const name = (
      (await remoteApi(`/settings/1/accounts/_/api-keys/${billing.remoteKey}`)).json as { name: string }
    ).name;
    return name === "billing v3 (mine)" ? name : undefined;
  });
  assert.equal((await ok(core, "keys.get", { key: billing.key })).name, "billing v3 (mine)");
  assert.equal((await linkNow()).conflicts, 0);
  assert.deepEqual(await ok(core, "sync.outbox", { id: link.id }), []);
});

test("a refused password pauses the link; editing the profile's password resumes it", async () => {
  remotePassword = "remote-secret-2";
  const changed = await runCli(["account", "passwd", "--data-dir", remoteDir, "--username", REMOTE_USER], {
    KEY_SERVICE_PASSWORD: remotePassword,
  });
  assert.equal(changed.code, 0, changed.stderr);
  const paused = await ok(core, "sync.run", { id: link.id });
  assert.equal(paused.state, "paused", JSON.stringify(paused));
  assert.equal(paused.pausedReason, "credentials");
  assert.ok(paused.lastError);

  await ok(core, "profiles.edit", { id: staging.id, password: remotePassword });
  const resumed = await linkNow();
  assert.notEqual(resumed.pausedReason, "credentials", JSON.stringify(resumed));
  await remoteKey("after the new password");
  const run = await ok(core, "sync.run", { id: link.id });
  assert.equal(run.lastError, null, JSON.stringify(run));
  assert.ok((await allKeys(core)).some((key) => key.name === "after the new password"));
});

test("when the remote moves, editing the profile's base URL moves its links too", async () => {
  await remote.stop("SIGTERM");
  remote = await startServe({ dataDir: remoteDir });
  const down = await ok(core, "sync.run", { id: link.id });
  assert.equal(down.state, "backing-off", "the old address answers no more");
  await ok(core, "profiles.edit", { id: staging.id, baseUrl: remote.url });
  const moved = await linkNow();
  assert.equal(moved.remote.baseUrl.replace(/\/+$/, ""), remote.url);
  const run = await ok(core, "sync.run", { id: link.id });
  assert.equal(run.lastError, null, JSON.stringify(run));
});

test("unknown links and outbox entries are NOT_FOUND; removing the link keeps the keys", async () => {
  assert.equal((await fails(core, "sync.run", { id: 9999 })).messageId, "NOT_FOUND");
  assert.equal(
    (await fails(core, "sync.outbox.discard", { id: link.id, entryId: 9999 })).messageId,
    "NOT_FOUND",
  );
  assert.equal((await fails(core, "sync.keys", { id: 0 })).messageId, "INVALID_ARGUMENT");
  assert.equal(await ok(core, "sync.links.remove", { id: link.id }), null);
  assert.deepEqual(await ok(core, "sync.links.list"), []);
  assert.equal((await allKeys(core)).length, 3);
  // The local account can be linked again.
  const second = await ok(core, "sync.links.create", { profileId: staging.id });
  assert.equal(await ok(core, "sync.links.remove", { id: second.id }), null);
  // The local service's HTTP API says the same as the bridge.
  assert.deepEqual((await localApi("/local/1/sync/links")).json, { links: [] });
});

test("a link whose remote fails the check is refused in words, and nothing is linked; check: false links anyway", async () => {
  const wrong = await ok(core, "profiles.add", {
    name: "Staging, old password",
    baseUrl: remote.url,
    username: REMOTE_USER,
    password: "not the password",
  });
  const refused = await fails(core, "sync.links.create", { profileId: wrong.id });
  assert.match(refused.validationErrors?.["remote.password"]?.[0] ?? "", /refused the username or password/);
  assert.match(refused.text, /^the link was not made: /);
  assert.deepEqual(await ok(core, "sync.links.list"), []);
  const anyway = await ok(core, "sync.links.create", { profileId: wrong.id, check: false });
  assert.equal(await ok(core, "sync.links.remove", { id: anyway.id }), null);
  await ok(core, "profiles.remove", { id: wrong.id });
});

test("keys made before the link are local-only: listed with their count, and pushed one by one", async () => {
  const made = await localApi("/settings/1/accounts/_/api-keys", "POST", { name: "made before the link" });
  assert.equal(made.status, 200, made.text);
  const { key } = made.json as { key: string };
  link = await ok(core, "sync.links.create", { profileId: staging.id });
  await ok(core, "sync.run", { id: link.id });
  const only = await ok(core, "sync.localOnly", { id: link.id });
  assert.equal(only.count, 1, JSON.stringify(only));
  assert.deepEqual(only.keys, [{ key, name: "made before the link", enabled: true }]);
  assert.equal(only.nextCursor, null);
  assert.equal(
    (await fails(core, "sync.localOnly.push", { id: link.id, keys: [] })).messageId,
    "INVALID_ARGUMENT",
  );
  assert.deepEqual(await ok(core, "sync.localOnly.push", { id: link.id, keys: [key] }), { queued: 1 });
  const run = await ok(core, "sync.run", { id: link.id });
  assert.equal(run.lastError, null, JSON.stringify(run));
  assert.equal((await ok(core, "sync.localOnly", { id: link.id })).count, 0);
  const there = (await remoteApi("/settings/1/accounts/_/api-keys?name=made%20before%20the%20link")).json as {
    apiKeys: unknown[];
  };
  assert.equal(there.apiKeys.length, 1, "created on the remote");
});
