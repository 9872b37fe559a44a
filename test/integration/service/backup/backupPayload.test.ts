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
import {
  deriveBackupKey,
  FORMAT,
  headBytes,
  manifestBytes,
  newHeader,
  sealer,
} from "../../../../electron/service/backup/backupFormat.ts";
import { openDataDir } from "../../../../electron/service/dataDir.ts";
import { makeTempDir, removeDir } from "../../../harness/keyServiceProcess.ts";

/**
 * The backup payload's optional file (the desktop's remote profiles): written as format 2, handed
 * back to the caller of a restore and never left in the data directory; a format 1 file listing
 * it, or any file name the format does not know, is refused as damaged.
 */

const PASSPHRASE = "twelve chars or more";
const LOW_KDF = { N: 2 ** 10, r: 8, p: 1 };
let root: string;
let dataDir: string;

before(async () => {
  root = await makeTempDir("keydesk-backup-payload-");
  dataDir = join(root, "data");
  openDataDir({ dataDir }).close();
});
after(() => removeDir(root));

test("with the remote profiles: format 2, restored beside the data, not into it", async () => {
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

/** A file sealed by hand with the given header format and payload files. */
async function handMade(format: number, files: { name: string; body: Buffer }[]): Promise<string> {
  const header = { ...newHeader(new Date(), LOW_KDF), format };
  const head = headBytes(header);
  const cipher = sealer(await deriveBackupKey(PASSPHRASE, header.kdf), header, head);
  const manifest = manifestBytes({
    schemaVersion: 1,
    files: files.map((file) => ({ name: file.name, bytes: file.body.length })),
  });
  const sealed = Buffer.concat([
    cipher.update(manifest),
    ...files.map((file) => cipher.update(file.body)),
    cipher.final(),
  ]);
  const path = join(root, `hand-${randomBytes(4).toString("hex")}.kdbackup`);
  writeFileSync(path, Buffer.concat([head, sealed, cipher.getAuthTag()]));
  return path;
}

test("a format 1 file listing the profiles, or a name no format knows, is damaged; nothing is written", async () => {
  for (const [format, name] of [
    [FORMAT, REMOTE_PROFILES_FILE],
    [2, "settings.json"],
  ] as const) {
    const input = await handMade(format, [
      { name: "keydesk.db", body: Buffer.alloc(0) },
      { name, body: Buffer.from("{}") },
    ]);
    const target = join(root, `refused-${format}`);
    await assert.rejects(
      restoreDataDir({ input, dataDir: target, passphrase: PASSPHRASE }),
      /the file is damaged \(a file name in it is invalid\)/,
    );
    assert.equal(existsSync(target), false);
    assert.deepEqual(
      readdirSync(root).filter((entry) => entry.includes("restoring")),
      [],
      "no staging left",
    );
  }
});
