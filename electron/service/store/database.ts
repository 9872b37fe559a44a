import { chmodSync, existsSync, readdirSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import Database from "better-sqlite3";
import { AUDIT_SCHEMA } from "./auditSchema.ts";
import {
  checkDatabase,
  DamagedDatabaseError,
  DEFAULT_START_CHECK_MAX_MB,
  isCorruption,
  worthCheckingAtStart,
} from "./databaseHealth.ts";
import { KEY_USAGE_DAYS_SCHEMA, KEY_USAGE_SCHEMA } from "./keyUsageSchema.ts";
import { LEGACY_SEALING } from "./sealedColumns.ts";

export type Db = Database.Database;

/** Set (meta) while freed space may still hold secrets written before they were kept out or sealed. */
export const SCRUB_PENDING = "free_space_scrub_pending";

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
  // The local 2FA simulator: applications, message templates, PINs and every message sent.
  `
  CREATE TABLE tfa_applications (
    id INTEGER PRIMARY KEY,
    application_id TEXT NOT NULL UNIQUE,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    name TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    configuration TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX tfa_applications_by_account ON tfa_applications(account_id, id);

  CREATE TABLE tfa_templates (
    id INTEGER PRIMARY KEY,
    message_id TEXT NOT NULL UNIQUE,
    application_ref INTEGER NOT NULL REFERENCES tfa_applications(id),
    fields TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX tfa_templates_by_application ON tfa_templates(application_ref, id);

  CREATE TABLE tfa_pins (
    id INTEGER PRIMARY KEY,
    pin_id TEXT NOT NULL UNIQUE,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    application_ref INTEGER NOT NULL REFERENCES tfa_applications(id),
    template_ref INTEGER NOT NULL REFERENCES tfa_templates(id),
    msisdn TEXT NOT NULL,
    pin_sealed BLOB NOT NULL,
    sent INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    attempts_remaining INTEGER NOT NULL,
    verified INTEGER NOT NULL,
    verified_at INTEGER
  ) STRICT;
  CREATE INDEX tfa_pins_by_application_msisdn ON tfa_pins(application_ref, msisdn, id);

  CREATE TABLE tfa_sends (
    id INTEGER PRIMARY KEY,
    pin_ref INTEGER NOT NULL REFERENCES tfa_pins(id),
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    application_ref INTEGER NOT NULL REFERENCES tfa_applications(id),
    msisdn TEXT NOT NULL,
    channel TEXT NOT NULL,
    text_sealed BLOB,
    sent_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX tfa_sends_by_application ON tfa_sends(application_ref, sent_at);
  CREATE INDEX tfa_sends_by_application_msisdn ON tfa_sends(application_ref, msisdn, sent_at);
  CREATE INDEX tfa_sends_by_account ON tfa_sends(account_id, id);
  `,
  // Idempotent creates, and sync with a remote instance: links, per-key sync state, the outbox.
  `
  CREATE TABLE idempotent_requests (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    idempotency_key TEXT NOT NULL,
    request_digest BLOB NOT NULL,
    status INTEGER NOT NULL,
    response_sealed BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (account_id, idempotency_key)
  ) STRICT;
  CREATE INDEX idempotent_requests_by_age ON idempotent_requests(created_at);

  CREATE TABLE sync_links (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL UNIQUE REFERENCES accounts(id),
    remote_base_url TEXT NOT NULL,
    remote_username TEXT NOT NULL,
    remote_password_sealed BLOB NOT NULL,
    remote_account_key TEXT NOT NULL,
    interval_seconds INTEGER NOT NULL,
    paused_reason TEXT,
    last_attempt_at INTEGER,
    last_success_at INTEGER,
    last_error TEXT,
    next_attempt_at INTEGER,
    failures INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE sync_keys (
    api_key_id INTEGER PRIMARY KEY REFERENCES api_keys(id),
    link_id INTEGER NOT NULL REFERENCES sync_links(id),
    remote_key TEXT,
    base TEXT,
    remote_missing INTEGER NOT NULL DEFAULT 0,
    conflict TEXT,
    UNIQUE (link_id, remote_key)
  ) STRICT;
  CREATE INDEX sync_keys_by_link ON sync_keys(link_id);

  CREATE TABLE sync_outbox (
    id INTEGER PRIMARY KEY,
    link_id INTEGER NOT NULL REFERENCES sync_links(id),
    api_key_id INTEGER NOT NULL REFERENCES api_keys(id),
    kind TEXT NOT NULL,
    fields TEXT NOT NULL,
    idempotency_key TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    created_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX sync_outbox_by_link ON sync_outbox(link_id, id);
  CREATE INDEX sync_outbox_by_key ON sync_outbox(api_key_id, id);
  `,
  // The body recorded for a create attempt (sync_outbox.fields -> sentBody) was a copy of the whole
  // stored key, publicApiKey in clear included. A create never sends the publicApiKey, so it keeps
  // only the synced fields. The bytes of earlier versions of these rows (and of deleted ones) may
  // still be in freed space: the scrub flag has openDatabase rebuild the file once (VACUUM).
  `
  UPDATE sync_outbox SET fields = json_set(fields, '$.sentBody', json_object(
      'name', fields -> '$.sentBody.name',
      'allowedIPs', fields -> '$.sentBody.allowedIPs',
      'permissions', fields -> '$.sentBody.permissions',
      'validFrom', fields -> '$.sentBody.validFrom',
      'validTo', fields -> '$.sentBody.validTo',
      'enabled', fields -> '$.sentBody.enabled'))
    WHERE json_type(fields, '$.sentBody') = 'object';
  -- A database without accounts never held a key (accounts are never deleted): nothing to scrub.
  INSERT INTO meta (name, value) SELECT '${SCRUB_PENDING}', '1' WHERE EXISTS (SELECT 1 FROM accounts)
    ON CONFLICT(name) DO UPDATE SET value = excluded.value;
  `,
  // Usage of keys by App-authorized calls (keyUsageStore.ts): totals, last calls, hours of a day.
  KEY_USAGE_SCHEMA,
  // The audit history of keys and accounts (auditStore.ts): who changed what, when, through what.
  AUDIT_SCHEMA,
  // A key's real creation time (`createdAt`, include=created), null where it is not known.
  // created_at is when the row was written here: for a key a sync pull copied from a remote that is
  // the pull, not the key's creation. Keys a link knows (sync_keys) may have been pulled, so they
  // are not known; every other key was created by this service, at created_at.
  `
  ALTER TABLE api_keys ADD COLUMN origin_created_at INTEGER;
  UPDATE api_keys SET origin_created_at = created_at
    WHERE id NOT IN (SELECT api_key_id FROM sync_keys);
  `,
  // verifyPinLimit's calls per PIN (TfaPinStore.nthNewestVerifyCall/recordVerifyCall), kept in the database so that every
  // replica of a shared one counts the same calls. Rows leave once out of every possible window.
  `
  CREATE TABLE tfa_verify_calls (
    id INTEGER PRIMARY KEY,
    pin_ref INTEGER NOT NULL REFERENCES tfa_pins(id),
    called_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX tfa_verify_calls_by_pin ON tfa_verify_calls(pin_ref, called_at);
  CREATE INDEX tfa_verify_calls_by_time ON tfa_verify_calls(called_at);
  `,
  // Sync link leases (SyncStore.leaseLink): which replica of a shared database runs the link now,
  // until when. SQLite (one process) never writes them.
  `
  ALTER TABLE sync_links ADD COLUMN lease_owner TEXT;
  ALTER TABLE sync_links ADD COLUMN lease_until INTEGER;
  `,
  // The failed sign-in throttle's buckets per client address (authFailureStore.ts), kept in the
  // database when replicas share it (PostgreSQL); a full bucket has no row. SQLite's service keeps
  // them in memory, so the table stays empty there.
  `
  CREATE TABLE auth_failures (
    address TEXT PRIMARY KEY,
    tokens REAL NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX auth_failures_by_time ON auth_failures(updated_at);
  `,
  // Secrets are sealed with libsodium's XChaCha20-Poly1305 from this version on (crypto/secretBox.ts).
  // Values sealed before with AES-256-GCM are sealed again once the database is opened with its data
  // key (sqliteReseal.ts upgradeSealedValues), which SQL alone cannot do: the flag says they may be
  // there. The version itself makes an older Keydesk refuse the database, whose values it cannot read.
  `
  INSERT INTO meta (name, value) SELECT '${LEGACY_SEALING}', '1' WHERE EXISTS (SELECT 1 FROM accounts)
    ON CONFLICT(name) DO UPDATE SET value = excluded.value;
  `,
  // A key's usage per UTC day for its 30-day chart (keyUsageStore.ts); hours are kept 48 hours now.
  KEY_USAGE_DAYS_SCHEMA,
  // A sync link's recent runs (syncRows.ts runLogWith), JSON newest first, bounded: kept with the
  // link's other state so that the Sync view shows them after a restart. And where each of a linked
  // key's conflicting remote values came from (when it was seen; who set it, when the remote says).
  `
  ALTER TABLE sync_links ADD COLUMN run_log TEXT;
  ALTER TABLE sync_keys ADD COLUMN conflict_origin TEXT;
  `,
  // IBSSO sessions (POST /auth/1/session): the token's keyed digest only, never the token; a
  // restore under another data key drops them (sealedColumns.ts DIGEST_ONLY_TABLES).
  `
  CREATE TABLE ibsso_sessions (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    token_digest BLOB NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX ibsso_sessions_by_account ON ibsso_sessions(account_id, expires_at);
  CREATE INDEX ibsso_sessions_by_expiry ON ibsso_sessions(expires_at);
  `,
];

/**
 * The schema version whose migration added api_keys.origin_created_at (its test starts just before it).
 * @internal Exported for tests.
 */
export const ORIGIN_CREATED_AT_VERSION = 7;

/**
 * The schema version whose migration added key_usage_days (its test starts just before it).
 * @internal Exported for tests.
 */
export const USAGE_DAYS_VERSION = 12;

/** @internal Exported for tests. */
export class DatabaseVersionError extends Error {}

export interface OpenDatabaseOptions {
  /**
   * A file up to this many MiB gets SQLite's quick check before anything else reads it (0: never);
   * DEFAULT_START_CHECK_MAX_MB by default. A larger one is checked by `key-service check`.
   */
  startCheckMaxMb?: number;
  /**
   * Runs on the database as it is, before any migration: what must refuse to open it (a data key
   * that is not its own) refuses before the schema is touched.
   */
  beforeMigrating?: (db: Db) => void;
}

/**
 * Opens (creating if needed) the service database and brings its schema up to date. A damaged
 * file throws DamagedDatabaseError, which names the file and what to do.
 */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Db {
  const check = worthCheckingAtStart(file, options.startCheckMaxMb ?? DEFAULT_START_CHECK_MAX_MB);
  const db = new Database(file);
  try {
    return prepare(db, file, check, options.beforeMigrating);
  } catch (error) {
    db.close();
    if (isCorruption(error)) throw new DamagedDatabaseError(file, (error as Error).message);
    throw error;
  }
}

function prepare(db: Db, file: string, check: boolean, beforeMigrating?: (db: Db) => void): Db {
  // Password hashes and sealed keys are nobody else's business; SQLite's -wal/-shm files inherit this mode.
  if (process.platform !== "win32") chmodSync(file, 0o600);
  // First: another process opening the same file at the same moment holds its lock for a moment.
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  whileBusy(() => db.pragma("journal_mode = WAL"));
  // FULL: a write the service has answered survives a crash of the process and of the machine.
  db.pragma("synchronous = FULL");
  db.pragma("foreign_keys = ON");
  // Deleted and overwritten content is zeroed, not left in freed pages or cell gaps: a secret that
  // is rewritten (sealed, replaced) or deleted does not linger in the database file. Per connection.
  db.pragma("secure_delete = ON");
  if (check) {
    const problems = checkDatabase(db, { limit: 3 });
    if (problems.length > 0) throw new DamagedDatabaseError(file, problems.join("; "));
  }
  beforeMigrating?.(db);
  whileBusy(() => migrate(db, file));
  scrubFreedSpace(db);
  return db;
}

/** How long a statement waits for another process's lock (SQLite's busy handler), and a start for its first steps. */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * Runs `step` again while another process's lock refuses it, for up to BUSY_TIMEOUT_MS. SQLite's
 * busy handler does not wait where waiting could deadlock: two processes opening a new file at
 * the same instant, both switching it to WAL (or both starting the first migration), and one is
 * answered "database is locked" at once. Each step here is safe to run again: the switch is
 * idempotent and each migration re-reads the version inside its own write transaction.
 */
function whileBusy<T>(step: () => T): T {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      return step();
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
      // A few milliseconds, varied, so two processes that collided do not collide again in step.
      Atomics.wait(PAUSE, 0, 0, 5 + Math.random() * 20);
    }
  }
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));

function isBusy(error: unknown): boolean {
  return /^SQLITE_(BUSY|LOCKED)/.test((error as { code?: unknown } | null)?.code?.toString() ?? "");
}

/** The schema version this code writes: how many migrations there are. */
export const SCHEMA_VERSION = MIGRATIONS.length;

function migrate(db: Db, file: string): void {
  const current = db.pragma("user_version", { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new DatabaseVersionError(
      `the database was written by a newer Keydesk (schema ${current}, this one knows ${MIGRATIONS.length}); upgrade Keydesk`,
    );
  }
  if (current > 0 && current < MIGRATIONS.length) keepCopyBeforeUpgrade(db, file, current);
  // Kept while the upgrade's re-sealing of secrets is still to be done (sqliteReseal.ts): until
  // then the database is not upgraded in full, and the copy is the way back.
  else if (current === MIGRATIONS.length && readMeta(db, LEGACY_SEALING) === undefined)
    dropCopiesBeforeUpgrade(file);
  migrateTo(db, MIGRATIONS.length);
}

/** Where the database as schema `version` left it is kept while a newer one is tried. */
function copyBeforeUpgrade(file: string, version: number): string {
  return `${file}.before-schema-${version}`;
}

/**
 * Before migrating, a copy of the database as it is (VACUUM INTO: consistent, whatever another
 * process writes) goes beside it: a failed upgrade can be undone by putting the copy back. It is
 * kept until a later start finds the schema current, i.e. the upgraded database opened again.
 */
function keepCopyBeforeUpgrade(db: Db, file: string, version: number): void {
  const copy = copyBeforeUpgrade(file, version);
  if (existsSync(copy)) return;
  const draft = `${copy}.${process.pid}.partial`;
  rmSync(draft, { force: true });
  db.prepare("VACUUM INTO ?").run(draft);
  if (process.platform !== "win32") chmodSync(draft, 0o600);
  renameSync(draft, copy);
}

function dropCopiesBeforeUpgrade(file: string): void {
  const dir = dirname(file);
  const prefix = `${basename(file)}.before-schema-`;
  for (const name of readdirSync(dir)) if (name.startsWith(prefix)) rmSync(join(dir, name), { force: true });
}

/**
 * Applies the migrations after the database's version up to `version` (a database as an earlier
 * Keydesk wrote it, for tests of the migrations that follow), each in its own transaction. The
 * version is read inside the write transaction: another process opening the same database at the
 * same moment may have applied the migration while this one waited for the lock.
 */
export function migrateTo(db: Db, version: number): void {
  const target = Math.min(version, MIGRATIONS.length);
  for (;;) {
    const applied = db
      .transaction(() => {
        const current = db.pragma("user_version", { simple: true }) as number;
        if (current >= target) return false;
        db.exec(MIGRATIONS[current] as string);
        db.pragma(`user_version = ${current + 1}`);
        return true;
      })
      .immediate();
    if (!applied) return;
  }
}

/**
 * Once after a migration that took secrets out of rows: VACUUM rebuilds the file, so no freed page
 * or gap still holds what secure_delete (off before then) left behind, and the WAL, which still has
 * the old page images, is checkpointed and truncated. With another process holding the database the
 * WAL may not be truncated now; the flag then stays and the next open tries again.
 */
function scrubFreedSpace(db: Db): void {
  if (readMeta(db, SCRUB_PENDING) === undefined) return;
  try {
    db.exec("VACUUM");
  } catch (error) {
    // Another process kept the database busy past busy_timeout: opening matters more; retried next open.
    if (isBusy(error)) return;
    throw error;
  }
  const checkpoint = db.pragma("wal_checkpoint(TRUNCATE)") as { busy: number }[];
  if (checkpoint[0]?.busy !== 0) return;
  db.prepare("DELETE FROM meta WHERE name = ?").run(SCRUB_PENDING);
  // The delete itself went to the WAL: truncate once more so the file ends empty.
  db.pragma("wal_checkpoint(TRUNCATE)");
}

/** A meta value; undefined also for a database not created yet (no meta table). */
export function readMeta(db: Db, name: string): string | undefined {
  if (!tableExists(db, "meta")) return undefined;
  const row = db.prepare("SELECT value FROM meta WHERE name = ?").get(name) as { value: string } | undefined;
  return row?.value;
}

export function tableExists(db: Db, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

export function writeMeta(db: Db, name: string, value: string): void {
  db.prepare(
    "INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
  ).run(name, value);
}
