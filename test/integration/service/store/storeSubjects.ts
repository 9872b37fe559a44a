import { randomBytes } from "node:crypto";
import { after } from "node:test";
import pg from "pg";
import { createSecretBox, type SecretBox } from "../../../../electron/service/crypto/secretBox.ts";
import { type DataDir, openDataDir } from "../../../../electron/service/dataDir.ts";
import { migratePostgres } from "../../../../electron/service/store/postgres/migrate.ts";
import { PostgresStore } from "../../../../electron/service/store/postgres/postgresStore.ts";
import type { Store } from "../../../../electron/service/store/store.ts";
import { makeTempDir, removeDir } from "../../../harness/keyServiceProcess.ts";
import { type PostgresCluster, skipWithoutPostgres, testPostgres } from "../../../harness/postgres.ts";

/**
 * The two stores under one test: a SqliteStore on a fresh data dir, or a PostgresStore on a fresh
 * database of this file's private cluster (started on first use, stopped after the file).
 */

export const STORE_KINDS = ["sqlite", "postgres"] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

export interface StoreSubject {
  store: Store;
  /** SQLite only: the open data dir (its synchronous stores and connection). */
  data?: DataDir;
  box: SecretBox;
  /** PostgreSQL only: the database's connection string (another replica opens its own pool on it). */
  url?: string;
}

let cluster: Promise<PostgresCluster> | undefined;
const cleanups: (() => Promise<void>)[] = [];

after(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  if (cluster) (await cluster).stop();
});

/**
 * A pool on the database at `url` (closed after the file). `applicationName` names its
 * connections in pg_stat_activity (the store's LISTEN connection too).
 */
export function poolOn(url: string, max = 4, applicationName?: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, application_name: applicationName });
  cleanups.push(() => pool.end());
  return pool;
}

/** A PostgresStore on `pool`, closed (its change feed's connection ended) after the file. */
function postgresStoreOn(pool: pg.Pool, box: SecretBox): PostgresStore {
  const store = new PostgresStore(pool, box);
  cleanups.push(() => store.close());
  return store;
}

/** A PostgresStore on an existing (migrated) database: another replica of the same service. */
export function postgresReplica(url: string, box: SecretBox, applicationName?: string): PostgresStore {
  return postgresStoreOn(poolOn(url, 4, applicationName), box);
}

/**
 * A fresh, empty store of this kind; undefined (the test skipped) where PostgreSQL is missing.
 */
export async function openStore(
  kind: StoreKind,
  t: { skip(message: string): void },
  dataKey = randomBytes(32),
): Promise<StoreSubject | undefined> {
  if (kind === "sqlite") {
    const dir = await makeTempDir();
    const data = openDataDir({ dataDir: dir, dataKey });
    cleanups.push(async () => {
      data.close();
      await removeDir(dir);
    });
    return { store: data.store, box: data.box, data };
  }
  if (skipWithoutPostgres(t)) return undefined;
  cluster ??= testPostgres();
  const url = await (await cluster).createDatabase();
  const pool = poolOn(url);
  await migratePostgres(pool);
  const box = createSecretBox(dataKey);
  return { store: postgresStoreOn(pool, box), box, url };
}

/**
 * Every row of a table as the database keeps it (bytes as Buffers), read around the store: what a
 * test checks for values that must never be there in clear.
 */
export async function storedRows(subject: StoreSubject, table: string): Promise<Record<string, unknown>[]> {
  if (subject.data)
    return subject.data.db.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).all() as Record<
      string,
      unknown
    >[];
  const client = new pg.Client({ connectionString: subject.url });
  await client.connect();
  try {
    return (await client.query(`SELECT * FROM "${table}"`)).rows;
  } finally {
    await client.end();
  }
}
