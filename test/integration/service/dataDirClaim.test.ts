import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { CLAIM_FILE, claimDataDir, DataDirBusyError } from "../../../electron/service/dataDirClaim.ts";
import { makeTempDir, removeDir, SQLITE_ONLY, startServe } from "../../harness/keyServiceProcess.ts";

/**
 * A data dir's claim: any number of services share it; a command that moves all of its data
 * claims it alone, refused while anything shares it and refusing anything that would; a process's
 * claim ends with the process, however it ends.
 */

let dir: string;
before(async () => {
  dir = await makeTempDir("keydesk-claim-");
});
after(() => removeDir(dir));

const refusedAlone = /is in use by a running key service .*: stop it first$/;
const refusedShared = /is being moved by another command .*; start this once it has finished$/;

test("shared claims coexist; a claim alone is refused until the last of them is released", () => {
  const first = claimDataDir(dir, "shared");
  const second = claimDataDir(dir, "shared");
  assert.throws(
    () => claimDataDir(dir, "alone"),
    (error: Error) => error instanceof DataDirBusyError && refusedAlone.test(error.message),
  );
  first.release();
  assert.throws(() => claimDataDir(dir, "alone"), DataDirBusyError);
  second.release();
  claimDataDir(dir, "alone").release();
});

test("a claim alone refuses shared claims and other claims alone until released", () => {
  const alone = claimDataDir(dir, "alone");
  assert.throws(
    () => claimDataDir(dir, "shared"),
    (error: Error) => error instanceof DataDirBusyError && refusedShared.test(error.message),
  );
  assert.throws(() => claimDataDir(dir, "alone"), DataDirBusyError);
  alone.release();
  alone.release();
  claimDataDir(dir, "shared").release();
});

test("the claim of a serve killed with SIGKILL ends with it", { skip: SQLITE_ONLY }, async () => {
  const serve = await startServe({ dataDir: dir });
  assert.throws(() => claimDataDir(dir, "alone"), DataDirBusyError);
  await serve.stop("SIGKILL");
  claimDataDir(dir, "alone").release();
});

test("a claim alone is refused while a serve has the database open, also once the claim file was deleted under it", {
  skip: SQLITE_ONLY,
}, async () => {
  const serve = await startServe({ dataDir: dir });
  try {
    // Taken for a stale lock by someone tidying up.
    rmSync(join(dir, CLAIM_FILE));
    assert.throws(
      () => claimDataDir(dir, "alone"),
      (error: Error) => error instanceof DataDirBusyError && refusedAlone.test(error.message),
    );
  } finally {
    await serve.stop("SIGTERM");
  }
  claimDataDir(dir, "alone").release();
});

test("the claim file is readable by its owner only", async () => {
  claimDataDir(dir, "shared").release();
  const { statSync } = await import("node:fs");
  assert.equal(statSync(`${dir}/${CLAIM_FILE}`).mode & 0o777, 0o600);
});
