import { spawnSync } from "node:child_process";
import { globSync, readFileSync } from "node:fs";
import { postgresMissing } from "./postgres.ts";

/**
 * `npm run test:postgres` (the last part of `npm test`): the service's integration tests once more,
 * on PostgreSQL (KEYDESK_TEST_STORE=postgres), one cluster for the run (testRunSetup.ts). Where
 * PostgreSQL is missing it says so in one line and passes, as the other tests that need a missing
 * part skip; with CI=true that is a failure.
 *
 * Left out: the files whose run does not depend on KEYDESK_TEST_STORE, which test:node has already
 * run as they would run here (about a quarter of this suite's time):
 * - store/: each test runs on both stores itself (storeSubjects.ts' STORE_KINDS);
 * - backup/: backups are of a SQLite data dir (PostgreSQL's are pg_dump's);
 * - those that build the HTTP app or a store in the test process on a SQLite data dir or on both
 *   stores (NOT_STORE_BOUND).
 * A left-out file that starts a service on the store under test would lose its PostgreSQL run
 * silently, so such a file (one naming what does: the harness' TEST_STORE, startServe, the service
 * and sync fixtures) fails this suite instead.
 */
const SERVICE_TESTS = "test/integration/service/**/*.test.ts";
const NOT_STORE_BOUND_DIRS = ["test/integration/service/store/", "test/integration/service/backup/"];
const NOT_STORE_BOUND = [
  "test/integration/service/http/metricsRoutes.test.ts",
  "test/integration/service/http/routeValidation.test.ts",
  "test/integration/service/slowClient.test.ts",
  "test/integration/service/tfa/replicaPinEvents.test.ts",
];
const STORE_BOUND_MARKS = /\b(TEST_STORE|SQLITE_ONLY|startServe|storeArgs)\b|serviceFixture|syncFixture/;

if (postgresMissing) {
  const line = `the service's tests on PostgreSQL: ${postgresMissing}`;
  if (process.env.CI === "true") {
    console.error(`fail: ${line}`);
    process.exit(1);
  }
  console.log(`skipped: ${line}`);
  process.exit(0);
}

const files = globSync(SERVICE_TESTS).sort();
const leftOut = (file: string) =>
  NOT_STORE_BOUND.includes(file) || NOT_STORE_BOUND_DIRS.some((dir) => file.startsWith(dir));
const bound = files.filter((file) => leftOut(file) && STORE_BOUND_MARKS.test(readFileSync(file, "utf8")));
if (bound.length > 0) {
  console.error(
    `fail: left out of the PostgreSQL run but they start a service on the store under test: ${bound.join(", ")}`,
  );
  process.exit(1);
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
    ...files.filter((file) => !leftOut(file)),
  ],
  { stdio: "inherit", env: { ...process.env, KEYDESK_TEST_STORE: "postgres" } },
);
process.exit(run.status ?? 1);
