import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { WEB_USAGE } from "../../../electron/web/browserHost.ts";
import { makeTempDir, REPO_ROOT, removeDir } from "../../harness/keyServiceProcess.ts";

/** `npm run -s web -- --help` (or -h) prints the host's usage and exits 0, starting nothing. */

test("--help and -h print the usage on stdout, exit 0, and start no host", async () => {
  const dataDir = await makeTempDir("keydesk-web-help-");
  try {
    for (const flag of ["--help", "-h"]) {
      const run = spawnSync(
        process.execPath,
        [join(REPO_ROOT, "electron", "web", "browserHost.ts"), "--data-dir", dataDir, flag],
        { cwd: REPO_ROOT, encoding: "utf8", timeout: 30_000 },
      );
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stderr, "");
      assert.ok(run.stdout.startsWith(`${WEB_USAGE}\n`), run.stdout);
      assert.match(run.stdout, /--port N/);
      assert.doesNotMatch(run.stdout, /keydesk web ui at/);
    }
  } finally {
    await removeDir(dataDir);
  }
});

test("an unknown option is still a usage error (exit 2) with the usage on stderr", () => {
  const run = spawnSync(process.execPath, [join(REPO_ROOT, "electron", "web", "browserHost.ts"), "--hlep"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    timeout: 30_000,
  });
  assert.equal(run.status, 2);
  assert.match(run.stderr, /Unknown option '--hlep'/);
  assert.ok(run.stderr.includes(WEB_USAGE));
});
