import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { backupDataDir, restoreDataDir } from "../../../../electron/service/backup/backupDataDir.ts";
import { claimDataDir, DataDirBusyError } from "../../../../electron/service/dataDirClaim.ts";
import { entriesOf, makeDataDir } from "../../../harness/backupDataDirs.ts";
import { makeTempDir, removeDir } from "../../../harness/keyServiceProcess.ts";

/**
 * What a restore writes into: a target that was empty when the restore began but holds data by its
 * end is not moved aside without --force; a backup "file" that is a FIFO is refused, not waited on.
 */

const PASSPHRASE = "twelve chars or more";
let root: string;
let input: string;

before(async () => {
  root = await makeTempDir("keydesk-restore-target-");
  const source = await makeDataDir(join(root, "source"));
  input = join(root, "input.kdbackup");
  await backupDataDir({ dataDir: source, out: input, passphrase: PASSPHRASE });
});
after(() => removeDir(root));

test("data written into the target while the restore runs is kept where it is, without --force", async () => {
  const dir = join(root, "during");
  mkdirSync(dir);
  const target = join(dir, "data");
  mkdirSync(target);
  let wrote = false;
  await assert.rejects(
    restoreDataDir({
      input,
      dataDir: target,
      passphrase: PASSPHRASE,
      // Another process starts using the directory while the backup is read.
      onProgress: () => {
        if (wrote) return;
        writeFileSync(join(target, "keydesk.db"), "written meanwhile");
        wrote = true;
      },
    }),
    /holds data; restore into an empty or new directory, or add --force/,
  );
  assert.ok(wrote);
  assert.deepEqual(entriesOf(dir), ["data"], "no staging directory, nothing moved aside");
  assert.deepEqual(
    entriesOf(target).filter((name) => !name.startsWith("keydesk.lock")),
    ["keydesk.db"],
  );
});

test("a restore into a directory not there yet claims it while unpacking: no key service starts in it meanwhile", async () => {
  const target = join(root, "new-target");
  const refusals: string[] = [];
  const restored = await restoreDataDir({
    input,
    dataDir: target,
    passphrase: PASSPHRASE,
    // Once the payload's bytes are being unpacked (at the end at the latest), the target is claimed.
    onProgress: (done, total) => {
      if (done < total) return;
      try {
        claimDataDir(target, "shared").release();
        refusals.push("claimed: a service could have started here");
      } catch (error) {
        refusals.push(error instanceof DataDirBusyError ? "refused" : String(error));
      }
    },
  });
  assert.deepEqual(refusals, ["refused"]);
  assert.equal(restored.dataDir, target);
  // Restored and released: a service may use it now.
  claimDataDir(target, "shared").release();
});

test("a failed restore into a directory it made leaves no directory behind", async () => {
  const target = join(root, "wrong-passphrase");
  await assert.rejects(
    restoreDataDir({ input, dataDir: target, passphrase: "not the passphrase at all" }),
    /passphrase/,
  );
  assert.equal(existsSync(target), false);
});

test("a FIFO given as the backup file is refused at once, not waited on", async () => {
  const fifo = join(root, "backup.fifo");
  execFileSync("mkfifo", [fifo]);
  await assert.rejects(
    restoreDataDir({ input: fifo, dataDir: join(root, "from-fifo"), passphrase: PASSPHRASE }),
    /it is not a file/,
  );
});
