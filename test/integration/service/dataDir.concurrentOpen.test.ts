import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { after, test } from "node:test";
import { promisify } from "node:util";
import { makeTempDir, REPO_ROOT, removeDir, SQLITE_ONLY } from "../../harness/keyServiceProcess.ts";

/**
 * Two processes opening one new data dir at the same instant (two `serve` replicas, or the desktop
 * app and a `serve` started together) both open it, on one schema and one data key. SQLite answers
 * one of them "database is locked" at once, without waiting, where both switch the new file to WAL
 * together (about one pair in seven here before the retry): the open runs that step again.
 */

const PAIRS = 24;
const OPENER = join(REPO_ROOT, "test/harness/openDataDirAt.ts");
const run = promisify(execFile);
const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await removeDir(dir);
});

test(`${PAIRS} pairs of processes opening a new data dir at the same instant all open it, with one data key`, {
  skip: SQLITE_ONLY,
}, async () => {
  const failures: string[] = [];
  for (let pair = 0; pair < PAIRS; pair++) {
    const dir = await makeTempDir("keydesk-concurrent-open-");
    dirs.push(dir);
    // Far enough ahead for both processes to have loaded the service's modules.
    const at = String(Date.now() + 900);
    const answers = await Promise.all(
      [0, 1].map(async () =>
        (await run(process.execPath, [OPENER, dir, at], { cwd: REPO_ROOT })).stdout.trim(),
      ),
    );
    const checks = new Set(answers.map((answer) => answer.replace(/^opened /, "")));
    for (const answer of answers) if (!answer.startsWith("opened ")) failures.push(`pair ${pair}: ${answer}`);
    if (failures.length === 0)
      assert.equal(checks.size, 1, `pair ${pair}: two data keys (${answers.join(", ")})`);
  }
  assert.deepEqual(failures, []);
});
