import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { startKeydeskCore } from "../../../../../electron/main/core.ts";
import type { KeydeskCore } from "../../../../../electron/main/corePorts.ts";
import { type CredentialVault, vaultAccounts } from "../../../../../electron/vault/credentialVault.ts";
import { SessionVault } from "../../../../../electron/vault/sessionVault.ts";
import type { BridgeEvent } from "../../../../../shared/bridge.ts";
import { damageKeysTable } from "../../../../harness/damageDatabase.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";
import { MemoryClipboard } from "../../../../harness/memoryClipboard.ts";
import { memoryKeychain } from "../../../../harness/memoryKeychain.ts";
import { flipAt, flipOldPayload, oldBackupOfDataDir } from "../../../../harness/oldBackupFormat.ts";
import { firstChunkPlaintext } from "../../../../harness/streamBackupFormat.ts";
import { allKeys, fails, ok } from "../../dispatchAssertions.ts";

/**
 * Settings → Back up… and Restore… through the core, on the embedded service while it runs: a
 * backup as the browser host's one download, restored from an upload, with the data that was
 * there kept beside it; a wrong passphrase changes nothing; the remote profiles' passwords travel
 * only when asked, to another machine with another keychain.
 */

const PASSPHRASE = "correct horse battery staple";

const startCore = (dataDir: string, vault: CredentialVault) =>
  startKeydeskCore({ dataDir, vault, clipboard: new MemoryClipboard(), defaultServicePort: 0 });

async function backupBody(core: KeydeskCore, args: Record<string, unknown>): Promise<Buffer> {
  const answer = await ok(core, "backup.create", { passphrase: PASSPHRASE, ...args });
  assert.equal(answer.delivered, "download");
  assert.ok(answer.delivered === "download");
  const file = core.takeDownload(answer.url.replace("/download/", ""));
  assert.ok(file);
  assert.match(file.fileName, /^keydesk-backup-\d{4}-\d{2}-\d{2}\.kdbackup$/);
  return file.body;
}

async function* chunks(body: Buffer) {
  yield body;
}

const publicApiKeys = async (core: KeydeskCore) => {
  const keys = await allKeys(core);
  const out = new Map<string, string>();
  for (const key of keys)
    out.set(key.name, (await ok(core, "keys.revealPublicApiKey", { key: key.key })).publicApiKey);
  return out;
};

describe("without a keychain (data.key in the service folder)", () => {
  let dataDir: string;
  let core: KeydeskCore;
  const events: BridgeEvent[] = [];
  let backup: Buffer;
  let before_: Map<string, string>;

  before(async () => {
    dataDir = await makeTempDir("keydesk-backup-");
    core = await startCore(dataDir, new SessionVault("backup test"));
    core.onEvent((event) => events.push(event));
    for (const name of ["alpha", "beta", "gamma"]) await ok(core, "keys.create", { request: { name } });
    before_ = await publicApiKeys(core);
  });
  after(async () => {
    await core?.close();
    await removeDir(dataDir);
  });

  test("a backup is one download, never answering a secret, with progress events", async () => {
    backup = await backupBody(core, { progressId: "b1" });
    assert.equal(backup.subarray(0, 8).toString(), "KDBACKUP");
    for (const secret of [...before_.values(), PASSPHRASE]) assert.ok(!backup.includes(secret));
    const progress = events.filter((event) => event.type === "backup-progress" && event.progressId === "b1");
    assert.ok(progress.length > 0);
    const last = progress.at(-1) as Extract<BridgeEvent, { type: "backup-progress" }>;
    assert.equal(last.done, last.total);
    assert.equal(last.phase, "backup");
  });

  test("a passphrase shorter than 12 characters is refused", async () => {
    const error = await fails(core, "backup.create", { passphrase: "short one" });
    assert.equal(error.messageId, "INVALID_ARGUMENT");
    assert.deepEqual(error.validationErrors?.passphrase, ["must be at least 12 characters"]);
  });

  test("inspect names the backup's date and what the restore would replace", async () => {
    await ok(core, "keys.create", { request: { name: "delta (after the backup)" } });
    const uploadId = await core.acceptUpload("mine.kdbackup", chunks(backup));
    const source = await ok(core, "backup.inspect", { source: { kind: "upload", uploadId } });
    assert.ok(source);
    assert.equal(source.sourceId, uploadId);
    assert.equal(source.fileName, "mine.kdbackup");
    assert.equal(source.automatic, false);
    assert.ok(Date.now() - Date.parse(source.createdAt) < 60_000);
    assert.deepEqual(source.current, { keys: 4, accounts: 1 });
  });

  test("a wrong passphrase changes nothing, and the service keeps answering", async () => {
    const uploadId = await core.acceptUpload("mine.kdbackup", chunks(backup));
    const error = await fails(core, "backup.restore", {
      sourceId: uploadId,
      passphrase: "not the passphrase",
    });
    assert.equal(error.messageId, "BAD_REQUEST");
    assert.equal(
      error.text,
      "mine.kdbackup was not restored: the passphrase is wrong, or the file is damaged; nothing was written",
    );
    assert.equal((await allKeys(core)).length, 4);
    assert.deepEqual(
      readdirSync(dataDir).filter((name) => name.startsWith("service") || name.startsWith(".service")),
      ["service"],
    );
  });

  test("a backup changed without the passphrase (format 3 or an old one) is refused in one line; nothing changes", async () => {
    const { plain, headLength } = await firstChunkPlaintext(backup, PASSPHRASE);
    const manifest = plain.subarray(4, 4 + plain.readUInt32BE(0)).toString("utf8");
    const from = /"bytes":\d+\}/.exec(manifest)?.[0] as string;
    const to = `"bytes":-5}`.padEnd(from.length);
    const old = await oldBackupOfDataDir({
      dataDir: join(dataDir, "service"),
      passphrase: PASSPHRASE,
      format: 1,
    });
    const oldFrom = /"bytes":\d+\}/.exec(old.manifestJson)?.[0] as string;
    for (const flipped of [
      flipAt(backup, headLength + 1 + 4 + manifest.indexOf(from), from, to),
      flipOldPayload(old, oldFrom, `"bytes":-5}`.padEnd(oldFrom.length)),
    ]) {
      const uploadId = await core.acceptUpload("mine.kdbackup", chunks(flipped));
      const error = await fails(core, "backup.restore", { sourceId: uploadId, passphrase: PASSPHRASE });
      assert.equal(error.messageId, "BAD_REQUEST");
      assert.equal(
        error.text,
        "mine.kdbackup was not restored: the passphrase is wrong, or the file is damaged; nothing was written",
      );
      assert.equal((await allKeys(core)).length, 4, "the service answers, with its data as it was");
      assert.deepEqual(
        readdirSync(dataDir).filter((name) => name.startsWith("service") || name.startsWith(".service")),
        ["service"],
        "no staging directory beside the data",
      );
    }
  });

  test("a damaged file is refused in words at inspect", async () => {
    const uploadId = await core.acceptUpload("junk.txt", chunks(Buffer.from("not a backup at all")));
    const error = await fails(core, "backup.inspect", { source: { kind: "upload", uploadId } });
    assert.equal(
      error.text,
      "junk.txt cannot be restored: it is not a Keydesk backup file (or its beginning is damaged)",
    );
  });

  test("restore: the backup's keys are back with the same publicApiKeys, the old data kept beside", async () => {
    const uploadId = await core.acceptUpload("mine.kdbackup", chunks(backup));
    events.length = 0;
    const result = await ok(core, "backup.restore", {
      sourceId: uploadId,
      passphrase: PASSPHRASE,
      progressId: "r1",
    });
    assert.equal(result.keys, 3);
    assert.equal(result.accounts, 1);
    assert.equal(result.remoteProfiles, 0);
    assert.ok(result.previous && existsSync(join(result.previous, "keydesk.db")));
    assert.deepEqual(await publicApiKeys(core), before_);
    assert.ok(events.some((event) => event.type === "data-restored"));
    assert.ok(events.some((event) => event.type === "backup-progress" && event.phase === "restore"));
    const sent = JSON.stringify([result, events]);
    for (const secret of [PASSPHRASE, ...before_.values()])
      assert.ok(!sent.includes(secret), "no secret goes out");
    assert.equal(
      (await fails(core, "backup.restore", { sourceId: uploadId, passphrase: PASSPHRASE })).messageId,
      "NOT_FOUND",
      "a source is restored once",
    );
  });

  test("the desktop's open dialog is not there in the browser host", async () => {
    const error = await fails(core, "backup.inspect", { source: { kind: "pick" } });
    assert.equal(error.messageId, "NOT_SUPPORTED");
  });

  test("automatic backups cannot be switched on without a keychain, and say why", async () => {
    const status = await ok(core, "backup.auto.status");
    assert.equal(status.available, false);
    assert.equal(status.enabled, false);
    assert.match(status.unavailableReason ?? "", /OS keychain/);
    const error = await fails(core, "backup.auto.configure", { enabled: true, passphrase: PASSPHRASE });
    assert.equal(error.messageId, "NO_KEYCHAIN");
  });
});

describe("a damaged Local database, the case a restore is for", () => {
  let dataDir: string;
  let core: KeydeskCore;

  before(async () => {
    dataDir = await makeTempDir("keydesk-backup-damaged-");
    core = await startCore(dataDir, new SessionVault("damaged backup test"));
  });
  after(async () => {
    await core?.close();
    await removeDir(dataDir);
  });

  test("the error names the desktop's restore; inspect still works; the restore brings the keys back", async () => {
    for (const name of ["alpha", "beta"]) await ok(core, "keys.create", { request: { name } });
    const saved = await publicApiKeys(core);
    const backup = await backupBody(core, {});
    damageKeysTable(join(dataDir, "service", "keydesk.db"));

    const error = await fails(core, "keys.page", { limit: 50 });
    assert.equal(error.messageId, "SERVICE_UNAVAILABLE");
    assert.match(error.text, / is damaged .*In Keydesk: Settings → Restore… brings the Local data back/);

    const uploadId = await core.acceptUpload("saved.kdbackup", chunks(backup));
    const source = await ok(core, "backup.inspect", { source: { kind: "upload", uploadId } });
    // Counted from an index SQLite can still read, or null ("cannot be read") when it cannot:
    // either way the admin gets to the confirmation.
    assert.ok(source, "inspect answers though the data is damaged");
    const result = await ok(core, "backup.restore", { sourceId: uploadId, passphrase: PASSPHRASE });
    assert.equal(result.keys, 2);
    assert.deepEqual(await publicApiKeys(core), saved);
  });
});

describe("with a keychain: to another machine, remote profiles' passwords only when asked", () => {
  let firstDir: string;
  let secondDir: string;
  let first: KeydeskCore;
  let second: KeydeskCore;
  const secondVault = memoryKeychain();
  let keys: Map<string, string>;

  before(async () => {
    firstDir = await makeTempDir("keydesk-backup-first-");
    secondDir = await makeTempDir("keydesk-backup-second-");
    first = await startCore(firstDir, memoryKeychain());
    second = await startCore(secondDir, secondVault);
    for (const name of ["one", "two"]) await ok(first, "keys.create", { request: { name } });
    await ok(first, "profiles.add", {
      name: "Team server",
      baseUrl: "http://127.0.0.1:9/",
      username: "alice",
      password: "alice-remote-secret",
    });
    keys = await publicApiKeys(first);
  });
  after(async () => {
    await first?.close();
    await second?.close();
    await removeDir(firstDir);
    await removeDir(secondDir);
  });

  test("without the tick, no remote profile travels", async () => {
    const backup = await backupBody(first, {});
    const uploadId = await second.acceptUpload("b.kdbackup", chunks(backup));
    await ok(second, "backup.inspect", { source: { kind: "upload", uploadId } });
    const result = await ok(second, "backup.restore", { sourceId: uploadId, passphrase: PASSPHRASE });
    assert.equal(result.remoteProfiles, 0);
    assert.deepEqual(
      (await ok(second, "profiles.list")).map((profile) => profile.name),
      ["Local"],
    );
    assert.deepEqual(await publicApiKeys(second), keys, "re-sealed under the second keychain's data key");
  });

  test("with it, the profiles and their passwords come back into the vault", async () => {
    const answer = await ok(first, "backup.create", { passphrase: PASSPHRASE, includeRemotePasswords: true });
    assert.ok(answer.delivered === "download");
    assert.equal(answer.remoteProfiles, 1);
    const body = first.takeDownload(answer.url.replace("/download/", ""))?.body as Buffer;
    assert.ok(!body.includes("alice-remote-secret"));
    const uploadId = await second.acceptUpload("b.kdbackup", chunks(body));
    await ok(second, "backup.inspect", { source: { kind: "upload", uploadId } });
    const result = await ok(second, "backup.restore", { sourceId: uploadId, passphrase: PASSPHRASE });
    assert.equal(result.remoteProfiles, 1);
    const profile = (await ok(second, "profiles.list")).find((each) => each.name === "Team server");
    assert.ok(profile);
    assert.equal(profile.username, "alice");
    assert.equal(await secondVault.get(vaultAccounts.profilePassword(profile.id)), "alice-remote-secret");
    assert.deepEqual(await publicApiKeys(second), keys);
    // The Local profile still signs in: its owner took this machine's password.
    assert.equal((await ok(second, "profiles.checkActive")).verdict.credentialsAccepted, true);
    const settings = readFileSync(join(secondDir, "settings.json"), "utf8");
    assert.ok(!settings.includes("alice-remote-secret"));
  });

  test("automatic backups: switched on, one made at once, listed; the passphrase only in the keychain", async () => {
    const status = await ok(second, "backup.auto.configure", { enabled: true, passphrase: PASSPHRASE });
    assert.equal(status.enabled, true);
    assert.equal(status.backups.length, 1);
    assert.equal(status.folder, join(secondDir, "backups"));
    assert.match(status.backups[0]?.name ?? "", /^keydesk-auto-\d{8}T\d{6}Z\.kdbackup$/);
    assert.equal(secondVault.entries.get(vaultAccounts.autoBackupPassphrase), PASSPHRASE);
    assert.ok(!readFileSync(join(secondDir, "settings.json"), "utf8").includes(PASSPHRASE));
    const source = await ok(second, "backup.inspect", {
      source: { kind: "automatic", name: status.backups[0]?.name },
    });
    assert.ok(source?.automatic);
    const restored = await ok(second, "backup.restore", { sourceId: source.sourceId });
    assert.equal(restored.keys, 2, "restored with the passphrase from the keychain");
    const off = await ok(second, "backup.auto.configure", { enabled: false });
    assert.equal(off.enabled, false);
    assert.equal(off.backups.length, 1, "the files stay");
    assert.equal(secondVault.entries.has(vaultAccounts.autoBackupPassphrase), false);
  });
});

describe("a backup written before format 3 (format 2, with a remote profile)", () => {
  let firstDir: string;
  let secondDir: string;
  let first: KeydeskCore;
  let second: KeydeskCore;
  const secondVault = new SessionVault("old format second");

  before(async () => {
    firstDir = await makeTempDir("keydesk-backup-old-first-");
    secondDir = await makeTempDir("keydesk-backup-old-second-");
    first = await startCore(firstDir, new SessionVault("old format first"));
    second = await startCore(secondDir, secondVault);
  });
  after(async () => {
    await first?.close();
    await second?.close();
    await removeDir(firstDir);
    await removeDir(secondDir);
  });

  test("restores: the keys with their publicApiKeys, the profile and its password", async () => {
    for (const name of ["old one", "old two"]) await ok(first, "keys.create", { request: { name } });
    const keys = await publicApiKeys(first);
    const profiles = {
      version: 1,
      profiles: [
        {
          id: "team",
          name: "Team server",
          baseUrl: "http://127.0.0.1:9/",
          username: "bob",
          password: "bob-secret",
        },
      ],
    };
    const old = await oldBackupOfDataDir({
      dataDir: join(firstDir, "service"),
      passphrase: PASSPHRASE,
      format: 2,
      extraFiles: [{ name: "profiles.json", body: Buffer.from(JSON.stringify(profiles)) }],
    });
    const uploadId = await second.acceptUpload("old.kdbackup", chunks(old.bytes));
    await ok(second, "backup.inspect", { source: { kind: "upload", uploadId } });
    const result = await ok(second, "backup.restore", { sourceId: uploadId, passphrase: PASSPHRASE });
    assert.equal(result.keys, 2);
    assert.equal(result.remoteProfiles, 1);
    assert.deepEqual(await publicApiKeys(second), keys);
    const profile = (await ok(second, "profiles.list")).find((each) => each.name === "Team server");
    assert.ok(profile);
    assert.equal(await secondVault.get(vaultAccounts.profilePassword(profile.id)), "bob-secret");
  });
});

describe("the desktop's dialogs (the save and open dialogs' port)", () => {
  let dataDir: string;
  let core: KeydeskCore;
  let target: string | null = null;
  const asked: string[] = [];

  before(async () => {
    dataDir = await makeTempDir("keydesk-backup-dialogs-");
    core = await startKeydeskCore({
      dataDir,
      vault: new SessionVault("dialogs test"),
      clipboard: new MemoryClipboard(),
      defaultServicePort: 0,
      backupFiles: {
        chooseBackupTarget: async (suggestedName) => {
          asked.push(suggestedName);
          return target;
        },
        chooseBackupToRestore: async () => target,
      },
    });
    await ok(core, "keys.create", { request: { name: "kept" } });
  });
  after(async () => {
    await core?.close();
    await removeDir(dataDir);
  });

  test("cancelled: nothing written; chosen: the file where the admin said, restored from the open dialog", async () => {
    assert.deepEqual(await ok(core, "backup.create", { passphrase: PASSPHRASE }), { delivered: "cancelled" });
    assert.match(asked[0] ?? "", /^keydesk-backup-\d{4}-\d{2}-\d{2}\.kdbackup$/);
    assert.equal(
      await ok(core, "backup.inspect", { source: { kind: "pick" } }),
      null,
      "open dialog cancelled",
    );
    target = join(dataDir, "chosen.kdbackup");
    const answer = await ok(core, "backup.create", { passphrase: PASSPHRASE });
    assert.deepEqual(answer, {
      delivered: "file",
      path: target,
      bytes: answer.delivered === "file" ? answer.bytes : 0,
      keys: 1,
      accounts: 1,
      remoteProfiles: 0,
    });
    assert.ok(existsSync(target));
    const source = await ok(core, "backup.inspect", { source: { kind: "pick" } });
    assert.equal(source?.fileName, "chosen.kdbackup");
    const restored = await ok(core, "backup.restore", { sourceId: source?.sourceId, passphrase: PASSPHRASE });
    assert.equal(restored.keys, 1);
    assert.ok(existsSync(target), "the chosen file is the admin's: never removed");
  });
});
