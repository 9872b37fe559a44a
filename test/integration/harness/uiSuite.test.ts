import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { makeTempDir, REPO_ROOT, removeDir } from "../../harness/keyServiceProcess.ts";

/**
 * uiSuite() without Chromium (CI's first job withholds it): every test of an e2e file skips, and
 * nothing is started for them, not even the file's own before hook; under CI=true they fail.
 */

async function runProbe(env: NodeJS.ProcessEnv): Promise<{ status: number | null; out: string }> {
  const dir = await makeTempDir("keydesk-uisuite-probe-");
  try {
    const file = join(dir, "probe.test.ts");
    const uiSuiteUrl = pathToFileURL(join(REPO_ROOT, "test", "harness", "uiSuite.ts")).href;
    await writeFile(
      file,
      `import { uiSuite } from ${JSON.stringify(uiSuiteUrl)};
const { test, before, after, page } = uiSuite({ name: "probe" });
before(() => console.log("FILE BEFORE RAN"));
after(() => console.log("FILE AFTER RAN"));
test("plain", async () => { await page.goto("about:blank"); });
test("with options", { timeout: 5_000 }, () => {});
`,
    );
    const run = spawnSync(process.execPath, ["--test", "--test-reporter=tap", file], {
      cwd: REPO_ROOT,
      encoding: "utf8",
      env: { ...env, KEYDESK_TEST_WITHOUT: "chromium" },
    });
    return { status: run.status, out: run.stdout + run.stderr };
  } finally {
    await removeDir(dir);
  }
}

// The child is a test run of its own, not a subtest of this one (node:test marks that in the env).
const { CI: _ci, NODE_TEST_CONTEXT: _context, ...withoutCi } = process.env;

test("without Chromium every test of a uiSuite file skips, saying why, and no hook of it runs", async () => {
  const { status, out } = await runProbe(withoutCi);
  assert.equal(status, 0, out);
  assert.match(out, /^# skipped 2$/m, out);
  assert.match(out, /# SKIP chromium withheld/, out);
  assert.doesNotMatch(out, /FILE (BEFORE|AFTER) RAN/, out);
});

test("without Chromium under CI=true every test of a uiSuite file fails, naming what is missing", async () => {
  const { status, out } = await runProbe({ ...withoutCi, CI: "true" });
  assert.equal(status, 1, out);
  assert.match(out, /^# fail 2$/m, out);
  assert.match(out, /chromium withheld/, out);
  assert.doesNotMatch(out, /FILE (BEFORE|AFTER) RAN/, out);
});
