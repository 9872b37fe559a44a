import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { entriesOf, makeDataDir } from "../../harness/backupDataDirs.ts";
import { makeTempDir, removeDir, runCli } from "../../harness/keyServiceProcess.ts";
import {
  CHEAP_KDF,
  flipOldPayload,
  oldBackupOfDataDir,
  writeOldBackup,
} from "../../harness/oldBackupFormat.ts";

/**
 * `key-service restore` refuses a file it cannot trust in one line (damaged, wrong passphrase,
 * or written by a newer Keydesk), exits 1, and writes nothing: no target, no staging directory.
 * Each input below once leaked an internal error, or made the restore spin until memory ran out.
 */

const PASSPHRASE = "twelve chars or more";
let root: string;
let source: string;
let cases = 0;

before(async () => {
  root = await makeTempDir("keydesk-restore-refusals-");
  source = await makeDataDir(join(root, "source"));
});
after(() => removeDir(root));

/** `key-service restore` of `bytes` in a directory of its own: exit 1, one line, nothing written. */
async function refusedInOneLine(bytes: Buffer, reason: RegExp): Promise<void> {
  const dir = join(root, `case-${++cases}`);
  mkdirSync(dir);
  const input = join(dir, "input.kdbackup");
  writeFileSync(input, bytes);
  const result = await runCli(["restore", "--in", input, "--data-dir", join(dir, "restored")], {
    KEY_SERVICE_BACKUP_PASSPHRASE: PASSPHRASE,
  });
  assert.equal(result.code, 1, result.stderr);
  assert.equal(result.stdout, "");
  const [line, ...more] = result.stderr.split("\n");
  assert.deepEqual(more, [""], `one line: ${result.stderr}`);
  assert.ok(line?.startsWith(`key-service: cannot restore ${input}: `), line);
  assert.match(line as string, reason);
  assert.deepEqual(entriesOf(dir), ["input.kdbackup"], "no target, no staging directory");
}

const DAMAGED = /: the file is damaged \([^)]+\); nothing was written$/;
const WRONG_OR_DAMAGED = /: the passphrase is wrong, or the file is damaged; nothing was written$/;
const KDF = /: the file is damaged, or was written by a newer Keydesk \(.*\); nothing was written$/;

const oldFile = (options: { manifestJson?: string; header?: Record<string, unknown> }) =>
  writeOldBackup({
    passphrase: PASSPHRASE,
    format: 1,
    kdf: CHEAP_KDF,
    files: [
      { name: "keydesk.db", body: Buffer.alloc(100) },
      { name: "data.key", body: Buffer.alloc(44) },
    ],
    ...options,
  });

describe("an old (format 1) file changed without the passphrase", () => {
  test('its manifest flipped from "bytes":N to "bytes":-5 (which made restore spin out of memory)', async () => {
    const old = await oldBackupOfDataDir({
      dataDir: source,
      passphrase: PASSPHRASE,
      format: 1,
      kdf: CHEAP_KDF,
    });
    const from = /"bytes":\d+\}/.exec(old.manifestJson)?.[0] as string;
    await refusedInOneLine(
      flipOldPayload(old, from, `"bytes":-5}`.padEnd(from.length, " ")),
      WRONG_OR_DAMAGED,
    );
  });
});

describe("inputs that leaked internal errors", () => {
  test("scrypt parameters node:crypto refuses (was: Invalid scrypt params)", async () => {
    const salt = Buffer.alloc(16, 1).toString("base64");
    const old = await oldFile({ header: { kdf: { name: "scrypt", N: 3 * 2 ** 14, r: 8, p: 1, salt } } });
    await refusedInOneLine(old.bytes, KDF);
  });

  test("an empty IV (was: Invalid initialization vector)", async () => {
    await refusedInOneLine((await oldFile({ header: { iv: "" } })).bytes, DAMAGED);
  });

  test("a manifest that is no JSON (was: JSON.parse's own text)", async () => {
    await refusedInOneLine((await oldFile({ manifestJson: '{"schemaVersion":1,"files":[' })).bytes, DAMAGED);
  });

  test("a manifest whose files are no list (was: manifest?.files.findIndex is not a function)", async () => {
    const manifestJson =
      '{"schemaVersion":1,"files":{"0":{"name":"keydesk.db","bytes":100},"1":{"name":"data.key","bytes":44}}}';
    await refusedInOneLine((await oldFile({ manifestJson })).bytes, DAMAGED);
  });

  test('a file that is its head and its tag only (was: The value of "start" is out of range)', async () => {
    const whole = (await oldFile({})).bytes;
    const headLength = 12 + whole.readUInt32BE(8);
    await refusedInOneLine(Buffer.concat([whole.subarray(0, headLength), whole.subarray(-16)]), DAMAGED);
  });

  test("a target that is a file (was: ENOTDIR)", async () => {
    const dir = join(root, `case-${++cases}`);
    mkdirSync(dir);
    const input = join(dir, "input.kdbackup");
    writeFileSync(
      input,
      (await oldBackupOfDataDir({ dataDir: source, passphrase: PASSPHRASE, format: 1, kdf: CHEAP_KDF }))
        .bytes,
    );
    const target = join(dir, "a-file");
    writeFileSync(target, "not a directory");
    const result = await runCli(["restore", "--in", input, "--data-dir", target], {
      KEY_SERVICE_BACKUP_PASSPHRASE: PASSPHRASE,
    });
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      `key-service: ${target} is not a directory (a file is there or on its path): restore into an empty or new directory; nothing was written\n`,
    );
    assert.deepEqual(entriesOf(dir), ["a-file", "input.kdbackup"]);
  });
});
