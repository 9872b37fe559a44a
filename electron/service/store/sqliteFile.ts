import Database from "better-sqlite3";
import type { SecretBox } from "../crypto/secretBox.ts";
import { SORT_INDEXES } from "./apiKeyStore.ts";
import { type Db, migrateTo } from "./database.ts";
import { KEY_CHECK } from "./sealedColumns.ts";
import { resealUnderNewKey } from "./sqliteReseal.ts";

/**
 * A data directory's database as a file, for the tools that handle the file rather than serve from
 * it (backup and restore, `key-service check`, the desktop app's restore dialog): opening it, its
 * counts, its data key's check value, its schema objects. The SQL those tools need, here, so no
 * module outside the store knows SQLite's dialect or the store's tables.
 */

export type { Db } from "./database.ts";

/** Opens an existing database file (never creates one); read-only when asked. */
export function openDatabaseFile(
  file: string,
  options: { readonly?: boolean; busyTimeoutMs?: number } = {},
): Db {
  const db = new Database(file, { readonly: options.readonly ?? false, fileMustExist: true });
  if (options.busyTimeoutMs !== undefined) {
    try {
      db.pragma(`busy_timeout = ${options.busyTimeoutMs}`);
    } catch (error) {
      db.close();
      throw error;
    }
  }
  return db;
}

/** Whether SQLite itself refused (a file that is no database, a missing table, …), not the caller's code. */
export function isSqliteError(error: unknown): boolean {
  return error instanceof Database.SqliteError;
}

/** The data key's check value stored in the database; undefined before anything was sealed. */
export function storedKeyCheck(db: Db): string | undefined {
  return (db.prepare("SELECT value FROM meta WHERE name = ?").get(KEY_CHECK) as { value: string } | undefined)
    ?.value;
}

/** How many keys and accounts the database holds. */
export function countKeysAndAccounts(db: Db): { keys: number; accounts: number } {
  const count = (table: "api_keys" | "accounts") =>
    (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  return { keys: count("api_keys"), accounts: count("accounts") };
}

/** The schema version the migrations brought the database to (SQLite's user_version). */
export function schemaVersionOf(db: Db): number {
  return db.pragma("user_version", { simple: true }) as number;
}

/** The database file's size in pages. */
export function pageCount(db: Db): number {
  return db.pragma("page_count", { simple: true }) as number;
}

/** The tables of the database, by name. */
export function tableNames(db: Db): string[] {
  return (
    db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as {
      name: string;
    }[]
  ).map((row) => row.name);
}

/** SQLite's integrity check of one table (its b-tree and its indexes): the problems found, none when sound. */
export function tableProblems(db: Db, table: string): string[] {
  const rows = db.pragma(`integrity_check(${JSON.stringify(table)})`) as Record<string, string>[];
  return rows.map((row) => Object.values(row)[0] as string).filter((text) => text !== "ok");
}

/** One object of a database's schema (a table, an index, a trigger, a view) as SQLite keeps it. */
export interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

export function schemaObjects(db: Db): SchemaObject[] {
  return db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema").all() as SchemaObject[];
}

/**
 * The schema Keydesk makes at `version`, made by running the migrations on an empty database in
 * memory: `required` what the migrations make; `optional` what a database of that version may
 * hold besides: the key store's sort indexes (made outside migrations, apiKeyStore.ts) and the
 * statistics tables of SQLite's ANALYZE.
 */
export function madeSchema(version: number): { required: SchemaObject[]; optional: SchemaObject[] } {
  const db = new Database(":memory:");
  try {
    migrateTo(db, version);
    const required = schemaObjects(db);
    try {
      db.exec(SORT_INDEXES);
    } catch {
      // A sort index over a column of a later version: such a database cannot hold it.
    }
    db.exec("ANALYZE");
    const made = new Set(required.map((object) => `${object.type} ${object.name}`));
    const optional = schemaObjects(db).filter((object) => !made.has(`${object.type} ${object.name}`));
    return { required, optional };
  } finally {
    db.close();
  }
}

/**
 * A consistent copy of the database at `snapshot` (VACUUM INTO: the committed state, while the
 * service may go on writing), after `acceptKeyCheck` saw the stored check value (it throws to
 * refuse: nothing is written then).
 */
export function snapshotDatabase(
  source: string,
  snapshot: string,
  acceptKeyCheck: (stored: string | undefined) => void,
): void {
  const db = openDatabaseFile(source, { busyTimeoutMs: 5000 });
  try {
    acceptKeyCheck(storedKeyCheck(db));
    db.prepare("VACUUM INTO ?").run(snapshot);
  } finally {
    db.close();
  }
}

/**
 * Every secret of the database file sealed again under another data key (sqliteReseal.ts), and
 * the WAL checkpointed into the file, which is then moved into place as a whole.
 */
export function resealFileUnderNewKey(file: string, fromKey: Buffer, to: SecretBox): void {
  const db = openDatabaseFile(file);
  try {
    resealUnderNewKey(db, fromKey, to);
    db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
}
