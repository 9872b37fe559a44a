import { chmodSync } from "node:fs";
import Database from "better-sqlite3";

export type Db = Database.Database;

/**
 * Schema migrations, applied in order; `PRAGMA user_version` records how many ran.
 * Never edit a shipped migration: append a new one.
 */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE meta (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) STRICT;

  CREATE TABLE accounts (
    id INTEGER PRIMARY KEY,
    account_key TEXT NOT NULL UNIQUE,
    username TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    parent_id INTEGER REFERENCES accounts(id),
    created_at INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE api_keys (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    name TEXT NOT NULL,
    public_api_key_digest BLOB NOT NULL UNIQUE,
    public_api_key_sealed BLOB NOT NULL,
    allowed_ips TEXT,
    permissions TEXT NOT NULL,
    valid_from INTEGER,
    valid_to INTEGER,
    enabled INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;

  CREATE INDEX api_keys_by_account ON api_keys(account_id, id);
  CREATE INDEX api_keys_by_account_enabled ON api_keys(account_id, enabled, id);
  CREATE INDEX api_keys_by_account_name ON api_keys(account_id, name);
  `,
];

export class DatabaseVersionError extends Error {}

/** Opens (creating if needed) the service database and brings its schema up to date. */
export function openDatabase(file: string): Db {
  const db = new Database(file);
  try {
    // Password hashes and sealed keys are nobody else's business; SQLite's -wal/-shm files inherit this mode.
    if (process.platform !== "win32") chmodSync(file, 0o600);
    db.pragma("journal_mode = WAL");
    // FULL: a write the service has answered survives a crash of the process and of the machine.
    db.pragma("synchronous = FULL");
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function migrate(db: Db): void {
  const current = db.pragma("user_version", { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new DatabaseVersionError(
      `the database was written by a newer Keydesk (schema ${current}, this one knows ${MIGRATIONS.length}); upgrade Keydesk`,
    );
  }
  for (let version = current; version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version] as string);
      db.pragma(`user_version = ${version + 1}`);
    }).immediate();
  }
}

export function readMeta(db: Db, name: string): string | undefined {
  const row = db.prepare("SELECT value FROM meta WHERE name = ?").get(name) as { value: string } | undefined;
  return row?.value;
}

export function writeMeta(db: Db, name: string, value: string): void {
  db.prepare(
    "INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
  ).run(name, value);
}
