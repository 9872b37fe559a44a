import assert from "node:assert/strict";
import { chmod, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { type KeydeskCoreOptions, startKeydeskCore } from "../../../electron/main/core.ts";
import { type KeydeskCore, PAGE_CLIPBOARD } from "../../../electron/main/corePorts.ts";
import { type CredentialVault, vaultAccounts } from "../../../electron/vault/credentialVault.ts";
import { SessionVault } from "../../../electron/vault/sessionVault.ts";
import type { ApiKeyView, BridgeEvent, RevealedApiKey } from "../../../shared/bridge.ts";
import { basic, makeTempDir, removeDir, request } from "../../harness/keyServiceProcess.ts";
import { MemoryClipboard } from "../../harness/memoryClipboard.ts";
import { memoryKeychain } from "../../harness/memoryKeychain.ts";
import { allKeys, fails, ok } from "./dispatchAssertions.ts";

/**
 * The desktop core in Node against its real embedded key service on a temp data dir: first run,
 * restart, port fallback, every keys.* method through dispatch, argument validation, settings
 * file contents, clipboard copy and clear, and the Local profile's own operations.
 */

const settingsOf = async (dataDir: string) =>
  JSON.parse(await readFile(join(dataDir, "settings.json"), "utf8")) as {
    profiles: { id: string; kind: string; baseUrl: string; username: string }[];
    rememberedPort: number;
    activeProfileId: string;
  };

describe("first run, restart and port", () => {
  let dataDir: string;
  const vault = memoryKeychain();
  let blocker: Server | undefined;
  const options = (): KeydeskCoreOptions => ({
    dataDir,
    vault,
    clipboard: new MemoryClipboard(),
    defaultServicePort: 0,
  });

  before(async () => {
    dataDir = await makeTempDir("keydesk-core-");
  });
  after(async () => {
    blocker?.close();
    await removeDir(dataDir);
  });

  let firstPort = 0;
  let ownerPassword = "";

  test("the first run creates the Local profile with a generated owner password in the vault", async () => {
    const core = await startKeydeskCore(options());
    try {
      const profiles = await ok(core, "profiles.list");
      assert.equal(profiles.length, 1);
      const [local] = profiles;
      assert.equal(local?.kind, "local");
      assert.equal(local?.name, "Local");
      assert.equal(local?.username, "owner");
      assert.equal(local?.active, true);
      assert.match(local?.baseUrl ?? "", /^http:\/\/127\.0\.0\.1:\d+$/);
      ownerPassword = (await vault.get(vaultAccounts.profilePassword("local"))) ?? "";
      assert.equal(ownerPassword.length, 32);
      assert.match((await vault.get(vaultAccounts.localDataKey)) ?? "", /^[A-Za-z0-9+/]{43}=$/);

      const status = await ok(core, "service.status");
      assert.equal(status.running, true);
      assert.equal(status.portChanged, false);
      assert.equal(status.takenPort, null);
      assert.equal(status.baseUrl, local?.baseUrl);
      assert.equal(status.keychain, "os");
      firstPort = status.port ?? 0;

      // The generated credentials work against the embedded service itself.
      const revealed = await ok(core, "profiles.revealLocalCredentials");
      assert.deepEqual(revealed, { baseUrl: local?.baseUrl, username: "owner", password: ownerPassword });
      const res = await request(revealed.baseUrl, {
        path: "/settings/1/accounts/_/api-keys",
        authorization: basic("owner", ownerPassword),
      });
      assert.equal(res.status, 200, res.text);
      assert.equal((await settingsOf(dataDir)).rememberedPort, firstPort);
    } finally {
      await core.close();
    }
  });

  test("a second start reuses the profile, the owner's password, the data and the remembered port", async () => {
    const core = await startKeydeskCore(options());
    try {
      const created = await ok(core, "keys.create", { request: { name: "survives restart" } });
      assert.equal((await ok(core, "service.status")).port, firstPort);
      assert.equal((await ok(core, "profiles.list")).length, 1);
      assert.equal(await vault.get(vaultAccounts.profilePassword("local")), ownerPassword);
      await core.close();
      const again = await startKeydeskCore(options());
      try {
        const keys = await allKeys(again);
        assert.deepEqual(
          keys.map((key) => key.key),
          [created.key],
        );
        const revealed = await ok(again, "keys.revealPublicApiKey", { key: created.key });
        assert.equal(revealed.publicApiKey, created.publicApiKey);
      } finally {
        await again.close();
      }
    } finally {
      await core.close();
    }
  });

  test("a taken port makes the service listen on another one, say so, and remember it", async () => {
    blocker = createServer();
    await new Promise<void>((resolve, reject) => {
      blocker?.once("error", reject);
      blocker?.listen(firstPort, "127.0.0.1", resolve);
    });
    const core = await startKeydeskCore(options());
    try {
      const status = await ok(core, "service.status");
      assert.equal(status.portChanged, true);
      assert.deepEqual(status.takenPort, { port: firstPort, remembered: true });
      assert.notEqual(status.port, firstPort);
      assert.equal((await settingsOf(dataDir)).rememberedPort, status.port);
      assert.equal((await allKeys(core)).length, 1);
    } finally {
      await core.close();
    }
  });

  test("a first start whose default port is taken says that port was taken, not a remembered one", async () => {
    const freshDir = await makeTempDir("keydesk-core-fresh-");
    const holder = createServer();
    await new Promise<void>((resolve, reject) => {
      holder.once("error", reject);
      holder.listen(0, "127.0.0.1", resolve);
    });
    const held = (holder.address() as { port: number }).port;
    try {
      const core = await startKeydeskCore({ ...options(), dataDir: freshDir, defaultServicePort: held });
      try {
        const status = await ok(core, "service.status");
        assert.deepEqual(status.takenPort, { port: held, remembered: false });
        assert.notEqual(status.port, held);
      } finally {
        await core.close();
      }
    } finally {
      holder.close();
      await removeDir(freshDir);
    }
  });

  test("a corrupt settings file is kept aside and the app starts with fresh settings", async () => {
    await writeFile(join(dataDir, "settings.json"), "{ not json");
    const core = await startKeydeskCore(options());
    try {
      assert.equal((await ok(core, "profiles.list")).length, 1);
      const files = await readdir(dataDir);
      assert.ok(
        files.some((file) => file.startsWith("settings.json.corrupt-")),
        files.join(", "),
      );
      // The data and the owner's credentials are untouched.
      assert.equal((await allKeys(core)).length, 1);
    } finally {
      await core.close();
    }
  });
});

describe("the Local profile through dispatch", () => {
  let dataDir: string;
  let core: KeydeskCore;
  const vault = memoryKeychain();
  const clipboard = new MemoryClipboard();
  const events: BridgeEvent[] = [];

  before(async () => {
    dataDir = await makeTempDir("keydesk-core-");
    core = await startKeydeskCore({
      dataDir,
      vault,
      clipboard,
      defaultServicePort: 0,
      clipboardClearMsOverride: 300,
    });
    core.onEvent((event) => events.push(event));
  });
  after(async () => {
    await core?.close();
    await removeDir(dataDir);
  });

  test("every keys.* method works through dispatch", async () => {
    const created = await ok(core, "keys.create", {
      request: { name: "billing", permissions: ["ALL"], allowedIPs: ["10.0.0.0/8"] },
    });
    assert.equal(created.name, "billing");
    assert.deepEqual(created.allowedIPs, ["10.0.0.0/8"]);
    const tfa = await ok(core, "keys.createTfa", { name: "2fa app" });
    assert.equal(tfa.name, "2fa app");
    assert.deepEqual(tfa.permissions, ["TFA"]);
    assert.equal(tfa.accountKey, created.accountKey);

    const { publicApiKey: _createdSecret, ...createdView } = created;
    const { publicApiKey: _tfaSecret, ...tfaView } = tfa;
    // keys.get carries the key's usage and creation time too (what the details panel shows), and
    // so does the create's answer (the new row shows "never", not "not reported").
    const got = await ok(core, "keys.get", { key: created.key });
    assert.deepEqual(got, createdView);
    assert.equal(got.usage?.total.allowed, 0);
    assert.match(String(got.createdAt), /^\d{4}-\d\d-\d\dT/);
    // The TFA key's answer too: it is made by the same create.
    const looked = await ok(core, "keys.lookup", { publicApiKey: tfa.publicApiKey });
    assert.deepEqual(looked, tfaView);
    assert.equal(looked?.usage?.total.allowed, 0);
    assert.equal(await ok(core, "keys.lookup", { publicApiKey: "no-such-key" }), null);

    const names = (keys: ApiKeyView[]) => keys.map((key) => key.name);
    assert.deepEqual(names(await allKeys(core)), ["billing", "2fa app"]);
    assert.deepEqual(names(await allKeys(core, { query: { permission: "TFA" } })), ["2fa app"]);
    assert.deepEqual(names(await allKeys(core, { query: { nameContains: "billing" } })), ["billing"]);

    const updated = await ok(core, "keys.update", {
      key: created.key,
      request: { name: "billing v2", allowedIPs: null },
    });
    assert.equal(updated.name, "billing v2");
    assert.equal(updated.allowedIPs, undefined);

    const disabled = await ok(core, "keys.setEnabled", { key: created.key, enabled: false });
    assert.equal(disabled.enabled, false);
    assert.deepEqual(names(await allKeys(core, { query: { enabled: false } })), ["billing v2"]);
    assert.deepEqual(names(await allKeys(core, { query: { enabled: true } })), ["2fa app"]);
    // Same accountKey explicitly as `_`.
    assert.equal((await allKeys(core, { accountKey: created.accountKey })).length, 2);
  });

  test("keys reach the renderer without their publicApiKey, except when created or revealed", async () => {
    const created = await ok(core, "keys.create", { request: { name: "secret shown once" } });
    assert.match(created.publicApiKey, /^[0-9a-f]{32}-/);
    const hint = `${created.publicApiKey.slice(0, 6)}…${created.publicApiKey.slice(-4)}`;
    assert.equal(created.publicApiKeyHint, hint);
    const views = [
      ...(await allKeys(core)),
      await ok(core, "keys.get", { key: created.key }),
      await ok(core, "keys.update", { key: created.key, request: { name: "renamed" } }),
      await ok(core, "keys.setEnabled", { key: created.key, enabled: true }),
    ];
    for (const view of views) {
      assert.equal("publicApiKey" in view, false, JSON.stringify(view));
      assert.doesNotMatch(JSON.stringify(view), new RegExp(created.publicApiKey.slice(8, 30)));
    }
    const revealed = await ok(core, "keys.revealPublicApiKey", { key: created.key });
    assert.equal(revealed.publicApiKey, created.publicApiKey);
  });

  test("the service's refusals arrive with messageId, text and validationErrors", async () => {
    const [key] = await allKeys(core);
    assert.ok(key);
    const changedId = await fails(core, "keys.update", {
      key: key.key,
      request: { publicApiKey: "something else" },
    });
    assert.equal(changedId.messageId, "BAD_REQUEST");
    assert.ok(changedId.validationErrors?.publicApiKey?.length, JSON.stringify(changedId));

    const window = await fails(core, "keys.create", {
      request: {
        name: "w",
        validFrom: "2027-01-01T00:00:00.000+0000",
        validTo: "2026-01-01T00:00:00.000+0000",
      },
    });
    assert.equal(window.messageId, "BAD_REQUEST");
    assert.ok(window.validationErrors?.validTo?.length, JSON.stringify(window));

    const missing = await fails(core, "keys.get", { key: "0123456789ABCDEF0123456789ABCDEF" });
    assert.equal(missing.messageId, "NOT_FOUND");
    assert.match(missing.text, /0123456789ABCDEF0123456789ABCDEF/);
  });

  test("invalid arguments and unknown methods answer INVALID_ARGUMENT with a message per field", async () => {
    const badKey = await fails(core, "keys.get", { key: "not/a key" });
    assert.equal(badKey.messageId, "INVALID_ARGUMENT");
    assert.ok(badKey.validationErrors?.key?.length, JSON.stringify(badKey));

    const badName = await fails(core, "keys.create", { request: { name: "   " } });
    assert.equal(badName.messageId, "INVALID_ARGUMENT");
    assert.ok(badName.validationErrors?.name?.length, JSON.stringify(badName));

    const extra = await fails(core, "keys.page", { colour: "red" });
    assert.equal(extra.messageId, "INVALID_ARGUMENT");

    const notAnObject = await fails(core, "settings.update", "fast");
    assert.equal(notAnObject.messageId, "INVALID_ARGUMENT");

    const tooShort = await fails(core, "settings.update", { clipboardClearSeconds: 1 });
    assert.ok(tooShort.validationErrors?.clipboardClearSeconds?.length, JSON.stringify(tooShort));

    const unknown = await fails(core, "keys.delete", {});
    assert.equal(unknown.messageId, "INVALID_ARGUMENT");
    assert.match(unknown.text, /keys\.delete/);
    const prototype = await fails(core, "toString", {});
    assert.equal(prototype.messageId, "INVALID_ARGUMENT");
  });

  test("copy puts the publicApiKey on the clipboard and clears it after the delay", async () => {
    const key = await ok(core, "keys.create", { request: { name: "to copy" } });
    const copied = await ok(core, "clipboard.copyPublicApiKey", { key: key.key });
    // Main wrote the clipboard: the answer carries the delay only, never the publicApiKey.
    assert.deepEqual(copied, { writtenBy: "main", clearsAfterMs: 300 });
    assert.equal(clipboard.text, key.publicApiKey);
    await sleep(600);
    assert.equal(clipboard.text, "");
  });

  test("the clipboard is left alone when it holds something else by the time the delay ends", async () => {
    const [key] = await allKeys(core);
    assert.ok(key);
    await ok(core, "clipboard.copyPublicApiKey", { key: key.key });
    await clipboard.writeText("the user's own text");
    await sleep(600);
    assert.equal(clipboard.text, "the user's own text");
  });

  test("settings: the clipboard delay defaults to 30 s and can be changed", async () => {
    assert.deepEqual(await ok(core, "settings.get"), {
      clipboardClearSeconds: 30,
      theme: "auto",
      expiryNotifications: true,
    });
    assert.deepEqual(await ok(core, "settings.update", { clipboardClearSeconds: 45 }), {
      clipboardClearSeconds: 45,
      theme: "auto",
      expiryNotifications: true,
    });
    assert.equal((await ok(core, "settings.get")).clipboardClearSeconds, 45);
    const stored = (await settingsOf(dataDir)) as unknown as { clipboardClearSeconds: number };
    assert.equal(stored.clipboardClearSeconds, 45);
  });

  test("settings: the theme follows the system by default, is kept as chosen, and only light, dark or auto", async () => {
    assert.equal((await ok(core, "settings.get")).theme, "auto");
    const delay = (await ok(core, "settings.get")).clipboardClearSeconds;
    assert.deepEqual(await ok(core, "settings.update", { theme: "dark" }), {
      clipboardClearSeconds: delay,
      theme: "dark",
      expiryNotifications: true,
    });
    assert.equal(((await settingsOf(dataDir)) as unknown as { theme: string }).theme, "dark");
    const refused = await fails(core, "settings.update", { theme: "sepia" });
    assert.equal(refused.messageId, "INVALID_ARGUMENT");
    assert.deepEqual(refused.validationErrors?.theme, ["must be light, dark or auto"]);
    assert.equal((await ok(core, "settings.get")).theme, "dark");
    await ok(core, "settings.update", { theme: "auto" });
  });

  test("accounts: the owner, then sub-accounts added on the Local profile", async () => {
    const before = await ok(core, "accounts.list");
    assert.equal(before.length, 1);
    assert.equal(before[0]?.username, "owner");
    assert.equal(before[0]?.parentAccountKey, null);
    const added = await ok(core, "accounts.addSubAccount", { username: "team-a", password: "team-a-secret" });
    assert.equal(added.username, "team-a");
    assert.equal(added.parentAccountKey, before[0]?.accountKey);
    assert.deepEqual(await ok(core, "accounts.list"), [...before, added]);
    // Keys of the sub-account through the owner's credentials.
    const key = await ok(core, "keys.create", {
      accountKey: added.accountKey,
      request: { name: "team key" },
    });
    assert.equal(key.accountKey, added.accountKey);

    const duplicate = await fails(core, "accounts.addSubAccount", {
      username: "team-a",
      password: "another-secret",
    });
    assert.equal(duplicate.messageId, "CONFLICT");
    // The bridge refuses what the console's form refuses, before the service is asked.
    const badName = await fails(core, "accounts.addSubAccount", { username: "has space", password: "x" });
    assert.equal(badName.messageId, "INVALID_ARGUMENT");
    assert.deepEqual(badName.validationErrors, {
      username: ["a username is 1 to 64 characters from letters, digits and . _ @ + -"],
      password: ["must be at least 8 characters"],
    });
    assert.equal((await ok(core, "accounts.list")).length, 2, "nothing was added");
  });

  test("the Local profile cannot be removed, and only its name can be edited", async () => {
    assert.equal((await fails(core, "profiles.remove", { id: "local" })).messageId, "NOT_SUPPORTED");
    assert.equal(
      (await fails(core, "profiles.edit", { id: "local", baseUrl: "http://example.com" })).messageId,
      "NOT_SUPPORTED",
    );
    const renamed = await ok(core, "profiles.edit", { id: "local", name: "This computer" });
    assert.equal(renamed.name, "This computer");
    const checked = await ok(core, "profiles.checkActive");
    assert.deepEqual(
      [
        checked.profile.name,
        checked.profile.kind,
        checked.verdict.reachable,
        checked.verdict.credentialsAccepted,
      ],
      ["This computer", "local", true, true],
    );
    assert.equal(checked.profile.baseUrl, (await ok(core, "service.status")).baseUrl);
    assert.equal((await fails(core, "profiles.activate", { id: "nope" })).messageId, "NOT_FOUND");
  });

  test("a PIN sent through the embedded 2FA simulator arrives as a pin event, a verification of it as a pin-state event", async () => {
    const password = (await vault.get(vaultAccounts.profilePassword("local"))) ?? "";
    const { baseUrl } = await ok(core, "profiles.revealLocalCredentials");
    const auth = basic("owner", password);
    const app = await request(baseUrl, {
      method: "POST",
      path: "/2fa/2/applications",
      authorization: auth,
      body: { name: "core test app" },
    });
    assert.equal(app.status, 200, app.text);
    const applicationId = (app.json as { applicationId: string }).applicationId;
    const template = await request(baseUrl, {
      method: "POST",
      path: `/2fa/2/applications/${applicationId}/messages`,
      authorization: auth,
      body: { messageText: "Your code is {{pin}}", pinType: "NUMERIC", pinLength: 6 },
    });
    assert.equal(template.status, 200, template.text);
    const messageId = (template.json as { messageId: string }).messageId;
    const sent = await request(baseUrl, {
      method: "POST",
      path: "/2fa/2/pin",
      authorization: auth,
      body: { applicationId, messageId, from: "Keydesk", to: "41793026727" },
    });
    assert.equal(sent.status, 200, sent.text);
    const pinId = (sent.json as { pinId: string }).pinId;
    for (let waited = 0; waited < 5000 && !events.some((e) => e.type === "pin"); waited += 50)
      await sleep(50);
    const pinEvent = events.find((event) => event.type === "pin");
    assert.ok(pinEvent && pinEvent.type === "pin", JSON.stringify(events));
    assert.equal(pinEvent.pin.pinId, pinId);
    assert.match(pinEvent.pin.pin, /^\d{6}$/);
    const listed = await ok(core, "pins.list", {});
    assert.equal(listed[0]?.pinId, pinId);

    const wrong = pinEvent.pin.pin === "000000" ? "111111" : "000000";
    const verified = await request(baseUrl, {
      method: "POST",
      path: `/2fa/2/pin/${pinId}/verify`,
      authorization: auth,
      body: { pin: wrong },
    });
    assert.equal(verified.status, 200, verified.text);
    for (let waited = 0; waited < 5000 && !events.some((e) => e.type === "pin-state"); waited += 50)
      await sleep(50);
    const stateEvent = events.find((event) => event.type === "pin-state");
    assert.ok(stateEvent && stateEvent.type === "pin-state", JSON.stringify(events));
    assert.deepEqual(
      {
        pinId: stateEvent.state.pinId,
        attemptsRemaining: stateEvent.state.attemptsRemaining,
        verified: stateEvent.state.verified,
      },
      { pinId, attemptsRemaining: pinEvent.pin.attemptsRemaining - 1, verified: false },
    );
  });

  test("the settings file holds no password or data key", async () => {
    const text = await readFile(join(dataDir, "settings.json"), "utf8");
    for (const account of [vaultAccounts.localDataKey, vaultAccounts.profilePassword("local")]) {
      const secret = await vault.get(account);
      assert.ok(secret, account);
      assert.equal(text.includes(secret), false, `settings.json contains the secret of ${account}`);
    }
    assert.doesNotMatch(text, /password/i);
    const settings = await settingsOf(dataDir);
    assert.equal(settings.profiles[0]?.username, "owner");
  });
});

describe("the browser host's page clipboard", () => {
  test("a copy answers the publicApiKey for the page to write, with the configured delay", async () => {
    const dataDir = await makeTempDir("keydesk-page-clipboard-");
    const core = await startKeydeskCore({
      dataDir,
      vault: memoryKeychain(),
      clipboard: PAGE_CLIPBOARD,
      defaultServicePort: 0,
    });
    try {
      const key = await ok(core, "keys.create", { request: { name: "copied in the page" } });
      assert.deepEqual(await ok(core, "clipboard.copyPublicApiKey", { key: key.key }), {
        writtenBy: "page",
        clearsAfterMs: 30_000,
        publicApiKey: key.publicApiKey,
      });
      await ok(core, "settings.update", { clipboardClearSeconds: 5 });
      const again = await ok(core, "clipboard.copyPublicApiKey", { key: key.key });
      assert.equal(again.clearsAfterMs, 5000);
    } finally {
      await core.close();
      await removeDir(dataDir);
    }
  });
});

/** A core on `dataDir` with `vault`, its service on any free port. */
const startIn = (dataDir: string, vault: CredentialVault) =>
  startKeydeskCore({ dataDir, vault, clipboard: new MemoryClipboard(), defaultServicePort: 0 });

describe("without an OS keychain (session-only vault)", () => {
  let dataDir: string;
  const start = (vault: CredentialVault) => startIn(dataDir, vault);

  before(async () => {
    dataDir = await makeTempDir("keydesk-no-keychain-");
  });
  after(() => removeDir(dataDir));

  test("the data outlives the session: a restart reads the keys made before it", async () => {
    const first = await start(new SessionVault("test: no Secret Service"));
    let created: RevealedApiKey;
    try {
      created = await ok(first, "keys.create", { request: { name: "made before the restart" } });
      const status = await ok(first, "service.status");
      assert.equal(status.keychain, "session-only");
      assert.equal(status.keychainUnavailableReason, "test: no Secret Service");
      assert.equal(status.localSecretsDir, join(dataDir, "service"));
    } finally {
      await first.close();
    }
    const keyFile = await stat(join(dataDir, "service", "data.key"));
    assert.equal(keyFile.mode & 0o777, 0o600, "the data key is kept in a file only its owner can read");

    const second = await start(new SessionVault("test: no Secret Service"));
    try {
      const [again] = await allKeys(second, { query: { nameContains: "made before the restart" } });
      assert.ok(again);
      const revealed = await ok(second, "keys.revealPublicApiKey", { key: again.key });
      assert.equal(revealed.publicApiKey, created.publicApiKey);
    } finally {
      await second.close();
    }
  });

  test("the Local owner's password stays the same across restarts, kept in a 0600 file", async () => {
    const passwordsDir = await makeTempDir("keydesk-owner-password-");
    const startAgain = () => startIn(passwordsDir, new SessionVault("test: no Secret Service"));
    try {
      const first = await startAgain();
      const before = await ok(first, "profiles.revealLocalCredentials").finally(() => first.close());
      const file = join(passwordsDir, "service", "owner.password");
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      assert.equal((await readFile(file, "utf8")).trim(), before.password);

      const second = await startAgain();
      try {
        const after = await ok(second, "profiles.revealLocalCredentials");
        assert.equal(after.password, before.password, "an app under test configured with it keeps working");
        // The service itself accepts it (not only the vault's copy).
        const res = await request(after.baseUrl, {
          path: "/settings/1/accounts/_/api-keys",
          authorization: basic(after.username, before.password),
        });
        assert.equal(res.status, 200);
      } finally {
        await second.close();
      }
    } finally {
      await removeDir(passwordsDir);
    }
  });

  test("an owner password file others can read is refused with the chmod to run", async () => {
    const exposedDir = await makeTempDir("keydesk-owner-password-exposed-");
    const startAgain = () => startIn(exposedDir, new SessionVault("test: no Secret Service"));
    try {
      await (await startAgain()).close();
      const file = join(exposedDir, "service", "owner.password");
      await chmod(file, 0o644);
      await assert.rejects(startAgain(), new RegExp(`mode 644\\); run: chmod 600 ${file}`));
    } finally {
      await removeDir(exposedDir);
    }
  });

  // The timeout also guards the quit: a PIN stream the service ended left a kept-alive socket
  // that held the core's close for 72 s (the stream now closes its connection).
  test("a keychain that comes later takes over the data key and the owner's password from their files", {
    timeout: 30_000,
  }, async () => {
    const laterDir = await makeTempDir("keydesk-keychain-later-");
    try {
      const before = await startIn(laterDir, new SessionVault("test: no Secret Service"));
      const created = await ok(before, "keys.create", { request: { name: "made without a keychain" } });
      const local = await ok(before, "profiles.revealLocalCredentials").finally(() => before.close());

      const keychain = memoryKeychain();
      const after = await startIn(laterDir, keychain);
      try {
        const revealed = await ok(after, "keys.revealPublicApiKey", { key: created.key });
        assert.equal(revealed.publicApiKey, created.publicApiKey);
        const status = await ok(after, "service.status");
        assert.equal(status.keychain, "os");
        assert.equal(status.localSecretsDir, undefined);
        assert.equal((await ok(after, "profiles.revealLocalCredentials")).password, local.password);
        assert.equal(await keychain.get(vaultAccounts.profilePassword("local")), local.password);
        const files = await readdir(join(laterDir, "service"));
        assert.ok(!files.includes("data.key") && !files.includes("owner.password"), files.join(", "));
      } finally {
        await after.close();
      }
    } finally {
      await removeDir(laterDir);
    }
  });

  test("data keyed in the OS keychain, started when the keychain is unavailable: a clear error", async () => {
    const keyedDir = await makeTempDir("keydesk-keychain-gone-");
    try {
      const core = await startIn(keyedDir, memoryKeychain());
      await core.close();
      await assert.rejects(
        startIn(keyedDir, new SessionVault("no Secret Service is running")),
        /data key is kept in the OS keychain, which is not available now \(no Secret Service is running\)/,
      );
    } finally {
      await removeDir(keyedDir);
    }
  });
});
