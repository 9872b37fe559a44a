import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  type ProgressListener,
  REMOTE_PROFILES_FILE,
  restoreDataDir,
} from "../../../../electron/service/backup/backupDataDir.ts";
import { parseHead } from "../../../../electron/service/backup/backupFormat.ts";
import { openDataDir } from "../../../../electron/service/dataDir.ts";
import { createdDuring, entriesOf, makeDataDir, rowsOf } from "../../../harness/backupDataDirs.ts";
import { copyF31ab92DataDir, F31AB92_FIXTURE } from "../../../harness/fixtureDataDir.ts";
import { makeTempDir, removeDir } from "../../../harness/keyServiceProcess.ts";
import {
  CHEAP_KDF,
  flipOldPayload,
  oldBackupOfDataDir,
  writeOldBackup,
} from "../../../harness/oldBackupFormat.ts";

/**
 * Backups written before format 3 (formats 1 and 2: one AES-256-GCM stream, its tag at the end)
 * still restore, but no byte of them is used before the tag is checked over the whole file; their
 * manifest is then checked strictly. Every refusal is one line and leaves nothing behind.
 */

const PASSPHRASE = "twelve chars or more";
const WRONG_OR_DAMAGED = "the passphrase is wrong, or the file is damaged; nothing was written";
let root: string;
let source: string;
let cases = 0;

before(async () => {
  root = await makeTempDir("keydesk-old-backup-");
  source = await makeDataDir(join(root, "source"));
});
after(() => removeDir(root));

/** A directory of its own holding only `bytes` as input.kdbackup. */
function caseWith(bytes: Buffer): { dir: string; input: string; target: string } {
  const dir = join(root, `case-${++cases}`);
  mkdirSync(dir);
  const input = join(dir, "input.kdbackup");
  writeFileSync(input, bytes);
  return { dir, input, target: join(dir, "restored") };
}

/**
 * Restoring `bytes` is refused with `message`; nothing was created beside the target, not even
 * for a moment (no staging directory: nothing was unpacked), and nothing is left.
 */
async function refused(bytes: Buffer, message: string, onProgress?: ProgressListener): Promise<void> {
  const { dir, input, target } = caseWith(bytes);
  const created = await createdDuring(dir, () =>
    assert.rejects(
      restoreDataDir({ input, dataDir: target, passphrase: PASSPHRASE, ...(onProgress && { onProgress }) }),
      (error: Error) => {
        assert.equal(error.message, message);
        return true;
      },
    ),
  );
  assert.deepEqual(created, [], "nothing created beside the target");
  assert.deepEqual(entriesOf(dir), ["input.kdbackup"], "no target, no staging directory");
}

const damaged = (what: string) => `the file is damaged (${what}); nothing was written`;

describe("formats 1 and 2 still restore", () => {
  test("format 1: the same database and data key", async () => {
    const old = await oldBackupOfDataDir({ dataDir: source, passphrase: PASSPHRASE, format: 1 });
    const { input, target } = caseWith(old.bytes);
    const restored = await restoreDataDir({ input, dataDir: target, passphrase: PASSPHRASE });
    assert.equal(restored.accounts, 1);
    assert.deepEqual(entriesOf(target), ["data.key", "keydesk.db"]);
    assert.deepEqual(rowsOf(target, "accounts"), rowsOf(source, "accounts"));
    assert.equal(
      readFileSync(join(target, "data.key"), "utf8").trim(),
      readFileSync(join(source, "data.key"), "utf8").trim(),
    );
  });

  test("format 2: the remote profiles handed back, not left in the data directory", async () => {
    const profiles = Buffer.from(JSON.stringify({ version: 1, profiles: [] }));
    const old = await oldBackupOfDataDir({
      dataDir: source,
      passphrase: PASSPHRASE,
      format: 2,
      extraFiles: [{ name: REMOTE_PROFILES_FILE, body: profiles }],
    });
    const { input, target } = caseWith(old.bytes);
    const progress: number[] = [];
    const restored = await restoreDataDir({
      input,
      dataDir: target,
      passphrase: PASSPHRASE,
      onProgress: (done, total) => progress.push(done / total),
    });
    assert.deepEqual(restored.extras.get(REMOTE_PROFILES_FILE), profiles);
    assert.deepEqual(entriesOf(target), ["data.key", "keydesk.db"]);
    assert.equal(progress.at(-1), 1);
  });
});

describe("an old file is authenticated whole before a byte of it is used", () => {
  test('a manifest flipped without the passphrase ("bytes":N into "bytes":-5) is refused; nothing written', async () => {
    const old = await oldBackupOfDataDir({
      dataDir: source,
      passphrase: PASSPHRASE,
      format: 1,
      kdf: CHEAP_KDF,
    });
    const size = /"name":"keydesk\.db","bytes":(\d+)/.exec(old.manifestJson)?.[1] as string;
    const from = `"bytes":${size}}`;
    const to = `"bytes":-5}`.padEnd(from.length, " ");
    await refused(flipOldPayload(old, from, to), WRONG_OR_DAMAGED);
  });

  test("a manifest flipped into another shape (files no longer a list) is refused; nothing written", async () => {
    const old = await oldBackupOfDataDir({
      dataDir: source,
      passphrase: PASSPHRASE,
      format: 1,
      kdf: CHEAP_KDF,
    });
    await refused(flipOldPayload(old, '"files":[', '"files":{'), WRONG_OR_DAMAGED);
  });

  test("a wrong passphrase on a multi-MB file: one pass over it, nothing unpacked or written", async () => {
    const big = await makeDataDir(join(root, "big"), { fillBytes: 4 * 1024 * 1024 });
    const old = await oldBackupOfDataDir({ dataDir: big, passphrase: PASSPHRASE, format: 1, kdf: CHEAP_KDF });
    assert.ok(old.bytes.length > 4 * 1024 * 1024);
    const read: number[] = [];
    const { dir, input, target } = caseWith(old.bytes);
    const created = await createdDuring(dir, () =>
      assert.rejects(
        restoreDataDir({
          input,
          dataDir: target,
          passphrase: "not the passphrase at all",
          onProgress: (done) => read.push(done),
        }),
        { message: WRONG_OR_DAMAGED },
      ),
    );
    assert.deepEqual(created, [], "no staging directory, not even for a moment");
    assert.deepEqual(entriesOf(dir), ["input.kdbackup"]);
    assert.ok(read.length > 1, "progress as it reads");
    assert.ok(Math.max(...read) <= old.bytes.length, "the second pass (the one that unpacks) never began");
  });
});

describe("an old file's manifest is checked, even when its tag is right", () => {
  const files = [
    { name: "keydesk.db", body: Buffer.alloc(100) },
    { name: "data.key", body: Buffer.alloc(44) },
  ];
  const sealedWith = async (manifestJson: string) =>
    (await writeOldBackup({ passphrase: PASSPHRASE, format: 1, files, kdf: CHEAP_KDF, manifestJson })).bytes;

  test("a negative size", async () => {
    await refused(
      await sealedWith(
        '{"schemaVersion":1,"files":[{"name":"keydesk.db","bytes":-5},{"name":"data.key","bytes":149}]}',
      ),
      damaged("its list of contents is not valid"),
    );
  });

  test("files that are not a list", async () => {
    await refused(
      await sealedWith(
        '{"schemaVersion":1,"files":{"0":{"name":"keydesk.db","bytes":100},"1":{"name":"data.key","bytes":44}}}',
      ),
      damaged("its list of contents is not valid"),
    );
  });

  test("a manifest that is no JSON", async () => {
    await refused(
      await sealedWith('{"schemaVersion":1,"files":[{"name":'),
      damaged("its list of contents cannot be read"),
    );
  });

  test("sizes that do not add up to the payload", async () => {
    await refused(
      await sealedWith(
        '{"schemaVersion":1,"files":[{"name":"keydesk.db","bytes":100},{"name":"data.key","bytes":45}]}',
      ),
      damaged("its list of contents does not match its size"),
    );
  });

  test("a name listed twice", async () => {
    await refused(
      await sealedWith(
        '{"schemaVersion":1,"files":[{"name":"keydesk.db","bytes":100},{"name":"keydesk.db","bytes":44}]}',
      ),
      damaged("a file name in it is invalid"),
    );
  });
});

describe("an old file's header is checked before any key is derived", () => {
  const headerOf = async (header: Record<string, unknown>) =>
    (
      await writeOldBackup({
        passphrase: PASSPHRASE,
        format: 1,
        files: [{ name: "keydesk.db", body: Buffer.alloc(10) }],
        kdf: CHEAP_KDF,
        header,
      })
    ).bytes;

  test("an IV that is not 12 bytes", async () => {
    await refused(await headerOf({ iv: "" }), damaged("its header is not valid"));
  });

  test("scrypt parameters node:crypto itself refuses (N not a power of two)", async () => {
    const salt = Buffer.alloc(16, 1).toString("base64");
    await refused(
      await headerOf({ kdf: { name: "scrypt", N: 3 * 2 ** 14, r: 8, p: 1, salt } }),
      "the file is damaged, or was written by a newer Keydesk (its key derivation is not one this Keydesk accepts); nothing was written",
    );
  });

  test("scrypt parameters that would take 4 GiB and minutes are refused by the head alone", async () => {
    const salt = Buffer.alloc(16, 1).toString("base64");
    const bytes = await headerOf({ kdf: { name: "scrypt", N: 2 ** 20, r: 32, p: 16, salt } });
    // parseHead derives nothing: its refusal comes before any key derivation.
    assert.throws(() => parseHead(bytes, bytes.length), {
      message:
        "the file is damaged, or was written by a newer Keydesk (its key derivation is not one this Keydesk accepts); nothing was written",
    });
  });

  test("a file that ends with its tag right after its head", async () => {
    const whole = await headerOf({});
    const headLength = 12 + whole.readUInt32BE(8);
    await refused(
      Buffer.concat([whole.subarray(0, headLength), whole.subarray(-16)]),
      damaged("it is cut short"),
    );
  });
});

describe("a format 1 backup of a data directory an older Keydesk sealed with AES-256-GCM", () => {
  const written = JSON.parse(readFileSync(join(F31AB92_FIXTURE, "written.json"), "utf8")) as {
    keys: { key: string; publicApiKey: string; accountKey: string }[];
  };

  async function restoredKeys(options: { dataKeyBase64?: string }): Promise<string[]> {
    const from = join(root, `f31ab92-${++cases}`);
    copyF31ab92DataDir(from);
    const backup = await oldBackupOfDataDir({
      dataDir: from,
      passphrase: PASSPHRASE,
      format: 1,
      kdf: CHEAP_KDF,
    });
    const { input, target } = caseWith(backup.bytes);
    await restoreDataDir({ input, dataDir: target, passphrase: PASSPHRASE, ...options });
    const data = openDataDir({ dataDir: target, ...options });
    try {
      const keys: string[] = [];
      for (const key of written.keys) {
        const account = await data.store.accounts.byAccountKey(key.accountKey);
        keys.push((await data.store.apiKeys.get(account?.id ?? -1, key.key))?.publicApiKey ?? "missing");
      }
      return keys;
    } finally {
      data.close();
    }
  }

  test("restores, and its keys open once the restored directory is opened (sealed again then)", async () => {
    assert.deepEqual(
      await restoredKeys({}),
      written.keys.map((key) => key.publicApiKey),
    );
  });

  test("restores under another data key: every value opened in the old format and sealed under the new key", async () => {
    assert.deepEqual(
      await restoredKeys({ dataKeyBase64: randomBytes(32).toString("base64") }),
      written.keys.map((key) => key.publicApiKey),
    );
  });
});
