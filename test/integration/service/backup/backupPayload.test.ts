import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  backupDataDir,
  REMOTE_PROFILES_FILE,
  restoreDataDir,
} from "../../../../electron/service/backup/backupDataDir.ts";
import { openDataDir } from "../../../../electron/service/dataDir.ts";
import { makeTempDir, removeDir } from "../../../harness/keyServiceProcess.ts";
import { writeOldBackup } from "../../../harness/oldBackupFormat.ts";
import { CHEAP_KDF, chunksOf, craftStreamBackup, payloadOf } from "../../../harness/streamBackupFormat.ts";

/**
 * The backup payload's optional file (the desktop's remote profiles): listed in the manifest,
 * handed back to the caller of a restore and never left in the data directory; a format 1 file
 * listing it, or any file name the format does not know, is refused as damaged.
 */

const PASSPHRASE = "twelve chars or more";
let root: string;
let dataDir: string;

before(async () => {
  root = await makeTempDir("keydesk-backup-payload-");
  dataDir = join(root, "data");
  openDataDir({ dataDir }).close();
});
after(() => removeDir(root));

test("with the remote profiles: listed in the manifest, restored beside the data, not into it", async () => {
  const profiles = Buffer.from(JSON.stringify({ version: 1, profiles: [] }));
  const out = join(root, "with.kdbackup");
  await backupDataDir({
    dataDir,
    out,
    passphrase: PASSPHRASE,
    extraFiles: [{ name: REMOTE_PROFILES_FILE, body: profiles }],
  });
  const progress: number[] = [];
  const restored = await restoreDataDir({
    input: out,
    dataDir: join(root, "restored"),
    passphrase: PASSPHRASE,
    onProgress: (done, total) => progress.push(done / total),
  });
  assert.deepEqual(restored.extras.get(REMOTE_PROFILES_FILE), profiles);
  assert.deepEqual(readdirSync(join(root, "restored")).sort(), ["data.key", "keydesk.db"]);
  assert.equal(progress.at(-1), 1);
});

/** An old (format 1 or 2) file sealed by hand with these payload files. */
async function oldHandMade(format: 1 | 2, files: { name: string; body: Buffer }[]): Promise<string> {
  const backup = await writeOldBackup({ passphrase: PASSPHRASE, format, files, kdf: CHEAP_KDF });
  const path = join(root, `hand-${randomBytes(4).toString("hex")}.kdbackup`);
  writeFileSync(path, backup.bytes);
  return path;
}

/** A format 3 file sealed by hand with these payload files. */
async function handMade(files: { name: string; body: Buffer }[]): Promise<string> {
  const backup = await craftStreamBackup({ passphrase: PASSPHRASE, chunks: chunksOf(payloadOf(files)) });
  const path = join(root, `hand-${randomBytes(4).toString("hex")}.kdbackup`);
  writeFileSync(path, backup.bytes);
  return path;
}

test("a format 1 file listing the profiles, or a name no format knows, is damaged; nothing is written", async () => {
  const inputs = [
    await oldHandMade(1, [
      { name: "keydesk.db", body: Buffer.alloc(0) },
      { name: "data.key", body: Buffer.alloc(0) },
      { name: REMOTE_PROFILES_FILE, body: Buffer.from("{}") },
    ]),
    await oldHandMade(2, [
      { name: "keydesk.db", body: Buffer.alloc(0) },
      { name: "settings.json", body: Buffer.from("{}") },
    ]),
    await handMade([
      { name: "keydesk.db", body: Buffer.alloc(0) },
      { name: "data.key", body: Buffer.alloc(0) },
      { name: "settings.json", body: Buffer.from("{}") },
    ]),
  ];
  for (const [index, input] of inputs.entries()) {
    const target = join(root, `refused-${index}`);
    await assert.rejects(restoreDataDir({ input, dataDir: target, passphrase: PASSPHRASE }), {
      message: "the file is damaged (a file name in it is invalid); nothing was written",
    });
    assert.equal(existsSync(target), false);
    assert.deepEqual(
      readdirSync(root).filter((entry) => entry.includes("restoring")),
      [],
      "no staging left",
    );
  }
});
