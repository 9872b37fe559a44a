import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startKeydeskCore } from "../../../electron/main/core.ts";
import type { KeydeskCore } from "../../../electron/main/corePorts.ts";
import { vaultAccounts } from "../../../electron/vault/credentialVault.ts";
import { SessionVault } from "../../../electron/vault/sessionVault.ts";
import {
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  request,
  type ServeProcess,
  startServe,
} from "../../harness/keyServiceProcess.ts";
import { MemoryClipboard } from "../../harness/memoryClipboard.ts";
import { fails, ok } from "./dispatchAssertions.ts";

/**
 * The tfa.* bridge methods (electron/main/core/handlers/tfa.ts) through the core's dispatch, against
 * the real embedded service and a real `key-service serve` as a remote profile's: what the bridge
 * saved is what the service's own HTTP API answers; the bridge refuses what the service would, with
 * the same field names; a sub-account is refused in words.
 */

let appDir: string;
let remoteDir: string;
let remote: ServeProcess;
let core: KeydeskCore;
let ownerAuth: string;
let localUrl: string;
const vault = new SessionVault("tfa test: secrets in memory");
const REMOTE_PASSWORD = "remote-secret-1";

before(async () => {
  appDir = await makeTempDir("keydesk-tfa-core-");
  remoteDir = await makeTempDir("keydesk-tfa-remote-");
  await addAccount(remoteDir, "alice", REMOTE_PASSWORD);
  remote = await startServe({ dataDir: remoteDir });
  core = await startKeydeskCore({
    dataDir: appDir,
    vault,
    clipboard: new MemoryClipboard(),
    defaultServicePort: 0,
  });
  ownerAuth = basic("owner", (await vault.get(vaultAccounts.profilePassword("local"))) ?? "");
  localUrl = (await ok(core, "service.status")).baseUrl ?? "";
});
after(async () => {
  await core?.close();
  await remote?.stop("SIGTERM");
  await removeDir(appDir);
  await removeDir(remoteDir);
});

test("an application created and edited through the bridge is what the service's API answers", async () => {
  assert.deepEqual(await ok(core, "tfa.applications.list", {}), []);
  const created = await ok(core, "tfa.applications.create", {
    request: { name: "Checkout login", configuration: { pinAttempts: 5, pinTimeToLive: "10m" } },
  });
  assert.equal(created.name, "Checkout login");
  assert.equal(created.enabled, true);
  assert.equal(created.configuration.pinAttempts, 5);
  assert.equal(created.configuration.sendPinPerPhoneNumberLimit, "3/1d");

  const updated = await ok(core, "tfa.applications.update", {
    applicationId: created.applicationId,
    request: { enabled: false, configuration: { sendPinPerPhoneNumberLimit: "5/1h" } },
  });
  const fromApi = await request(localUrl, {
    path: `/2fa/2/applications/${created.applicationId}`,
    authorization: ownerAuth,
  });
  assert.equal(fromApi.status, 200, fromApi.text);
  assert.deepEqual(fromApi.json, updated);
  assert.deepEqual(updated.configuration, {
    ...created.configuration,
    sendPinPerPhoneNumberLimit: "5/1h",
  });
  assert.equal(updated.enabled, false);
  assert.deepEqual(await ok(core, "tfa.applications.list", {}), [updated]);
});

test("a template created and edited through the bridge is what the service's API answers", async () => {
  const [application] = await ok(core, "tfa.applications.list", { accountKey: "_" });
  assert.ok(application);
  const { applicationId } = application;
  const created = await ok(core, "tfa.templates.create", {
    applicationId,
    request: { messageText: "Your code is {{pin}}", pinType: "NUMERIC", pinLength: 6, senderId: "Shop" },
  });
  assert.equal(created.pinLength, 6);
  assert.equal(created.language, "en");
  const updated = await ok(core, "tfa.templates.update", {
    applicationId,
    messageId: created.messageId,
    request: { messageText: "Code: {{pin}}", language: "de", senderId: null },
  });
  assert.equal(updated.senderId, undefined);
  const fromApi = await request(localUrl, {
    path: `/2fa/2/applications/${applicationId}/messages`,
    authorization: ownerAuth,
  });
  assert.deepEqual(fromApi.json, [updated]);
  assert.deepEqual(await ok(core, "tfa.templates.list", { applicationId }), [updated]);
});

test("the bridge refuses what the service would, naming the field as the service does", async () => {
  const refused = await fails(core, "tfa.applications.create", {
    request: { name: "x", configuration: { pinTimeToLive: "15x", pinAttempts: 0 } },
  });
  assert.equal(refused.messageId, "INVALID_ARGUMENT");
  assert.deepEqual(Object.keys(refused.validationErrors ?? {}).sort(), [
    "configuration.pinAttempts",
    "configuration.pinTimeToLive",
  ]);
  const [application] = await ok(core, "tfa.applications.list", {});
  const noPin = await fails(core, "tfa.templates.create", {
    applicationId: application?.applicationId,
    request: { messageText: "no placeholder", pinType: "NUMERIC" },
  });
  assert.match(noPin.validationErrors?.messageText?.join() ?? "", /\{\{pin\}\}/);
  // Nothing was created by either.
  assert.equal((await ok(core, "tfa.applications.list", {})).length, 1);
});

test("a sub-account's applications are refused in words (the 2FA API acts in the caller's own account)", async () => {
  const sub = await ok(core, "accounts.addSubAccount", { username: "tfa-sub", password: "sub-password-1" });
  const refused = await fails(core, "tfa.applications.list", { accountKey: sub.accountKey });
  assert.equal(refused.messageId, "NOT_SUPPORTED");
  assert.match(refused.text, /own credentials/);
  // The own account named by its key works like `_`.
  const [own] = await ok(core, "accounts.list");
  assert.equal((await ok(core, "tfa.applications.list", { accountKey: own?.accountKey })).length, 1);
});

test("with a remote profile active, applications are the remote's", async () => {
  const profile = await ok(core, "profiles.add", {
    name: "Remote",
    baseUrl: remote.url,
    username: "alice",
    password: REMOTE_PASSWORD,
  });
  await ok(core, "profiles.activate", { id: profile.id });
  try {
    assert.deepEqual(await ok(core, "tfa.applications.list", {}), []);
    const created = await ok(core, "tfa.applications.create", { request: { name: "Remote app" } });
    const fromApi = await request(remote.url, {
      path: "/2fa/2/applications",
      authorization: basic("alice", REMOTE_PASSWORD),
    });
    assert.deepEqual(fromApi.json, [created]);
  } finally {
    await ok(core, "profiles.activate", { id: "local" });
  }
  assert.equal((await ok(core, "tfa.applications.list", {})).length, 1);
});
