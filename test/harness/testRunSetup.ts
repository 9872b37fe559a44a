import { postgresMissing, SHARED_CLUSTER_VARIABLE, startPostgres } from "./postgres.ts";

/**
 * node --test's global setup (package.json's test scripts): one PostgreSQL cluster for the whole run,
 * handed to every test file's process through the environment (testPostgres() in each file makes its
 * own databases on it). Where PostgreSQL is missing nothing starts, and the tests say so themselves.
 */
let stop: (() => void) | undefined;

export async function globalSetup(): Promise<void> {
  if (postgresMissing || process.env[SHARED_CLUSTER_VARIABLE]) return;
  const cluster = await startPostgres();
  stop = cluster.stop;
  process.env[SHARED_CLUSTER_VARIABLE] = cluster.url();
}

export async function globalTeardown(): Promise<void> {
  stop?.();
}
