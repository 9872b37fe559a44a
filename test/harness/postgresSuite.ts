import { spawnSync } from "node:child_process";
import { postgresMissing } from "./postgres.ts";

/**
 * `npm run test:postgres` (the last part of `npm test`): the service's integration tests once more,
 * on PostgreSQL (KEYDESK_TEST_STORE=postgres), one cluster for the run (testRunSetup.ts). Where
 * PostgreSQL is missing it says so in one line and passes, as the other tests that need a missing
 * part skip; with CI=true that is a failure.
 */
if (postgresMissing) {
  const line = `the service's tests on PostgreSQL: ${postgresMissing}`;
  if (process.env.CI === "true") {
    console.error(`fail: ${line}`);
    process.exit(1);
  }
  console.log(`skipped: ${line}`);
  process.exit(0);
}

const run = spawnSync(
  process.execPath,
  [
    "--import",
    "./test/harness/compileCache.ts",
    "--test",
    "--test-concurrency=2",
    "--test-global-setup=./test/harness/testRunSetup.ts",
    ...process.argv.slice(2),
    "test/integration/service/**/*.test.ts",
  ],
  { stdio: "inherit", env: { ...process.env, KEYDESK_TEST_STORE: "postgres" } },
);
process.exit(run.status ?? 1);
