import type pg from "pg";
import { POSTGRES_MIGRATIONS } from "./schema.ts";
import { inTransaction } from "./sql.ts";

/**
 * Brings a PostgreSQL database's schema up to date, safely when several replicas start at once:
 * everything happens in one transaction that first takes a transaction-level advisory lock, so a
 * second replica waits for the first one's commit and then finds nothing left to do. A failure
 * rolls the whole upgrade back (PostgreSQL's DDL is transactional): never half a schema.
 */

/** The advisory lock key of schema changes ("Keydesk schema"): one per database. */
const MIGRATION_LOCK = 4_607_182_418_800_017_409n;

/** @internal Exported for tests. */
export class PostgresSchemaVersionError extends Error {}

export interface MigrationResult {
  /** The version found (0: an empty database). */
  from: number;
  /** The version left. */
  to: number;
}

/**
 * Applies the migrations after the database's version up to `version` (all by default; an earlier
 * one lets tests build a database as an older Keydesk left it). Takes a connection of its own from
 * the pool for the transaction. A database written by a newer Keydesk is refused, untouched.
 */
export async function migratePostgres(
  pool: pg.Pool,
  version = POSTGRES_MIGRATIONS.length,
): Promise<MigrationResult> {
  const target = Math.min(version, POSTGRES_MIGRATIONS.length);
  return inTransaction(pool, (client) => migrateLocked(client, target));
}

async function migrateLocked(client: pg.PoolClient, target: number): Promise<MigrationResult> {
  await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK.toString()]);
  // Read committed: each statement from here sees what a replica that held the lock before committed.
  await client.query(
    "CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY, applied_at bigint NOT NULL)",
  );
  const { rows } = await client.query<{ version: number | null }>(
    "SELECT max(version) AS version FROM schema_version",
  );
  const from = rows[0]?.version ?? 0;
  if (from > POSTGRES_MIGRATIONS.length) {
    throw new PostgresSchemaVersionError(
      `the database was written by a newer Keydesk (schema ${from}, this one knows ${POSTGRES_MIGRATIONS.length}); upgrade Keydesk`,
    );
  }
  for (let next = from; next < target; next++) {
    try {
      await client.query((POSTGRES_MIGRATIONS[next] as { sql: string }).sql);
    } catch (error) {
      throw new Error(
        `upgrading the PostgreSQL schema to version ${next + 1} failed, nothing was changed: ${(error as Error).message}`,
        { cause: error },
      );
    }
    await client.query("INSERT INTO schema_version (version, applied_at) VALUES ($1, $2)", [
      next + 1,
      Date.now(),
    ]);
  }
  return { from, to: Math.max(from, target) };
}

/** The schema version a database has (0 when it has none): for status lines and tests. */
export async function postgresSchemaVersion(pool: pg.Pool): Promise<number> {
  const exists = await pool.query<{ name: string | null }>("SELECT to_regclass('schema_version') AS name");
  if (exists.rows[0]?.name == null) return 0;
  const { rows } = await pool.query<{ version: number | null }>(
    "SELECT max(version) AS version FROM schema_version",
  );
  return rows[0]?.version ?? 0;
}
