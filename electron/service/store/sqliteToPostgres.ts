import { isDeepStrictEqual } from "node:util";
import type pg from "pg";
import type { SecretBox } from "../crypto/secretBox.ts";
import { KEY_CHECK } from "../dataDir.ts";
import { type ApiKeyRow, grantOf, storedApiKeyOf } from "./apiKeyRows.ts";
import { type Db, readMeta, SCHEMA_VERSION, SCRUB_PENDING } from "./database.ts";
import { migratePostgres, postgresSchemaVersion } from "./postgres/migrate.ts";
import { postgresApiKeys } from "./postgres/postgresApiKeys.ts";
import { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from "./postgres/schema.ts";
import { inTransaction, sqlOn } from "./postgres/sql.ts";

/**
 * `key-service migrate --from-sqlite` (issue 15, slice 6): copies a SQLite data dir's database
 * into an empty PostgreSQL database, row for row. Sealed values and digests go as they are: the
 * PostgreSQL service runs with the same data key. The whole copy and its check are one PostgreSQL
 * transaction, so a failure anywhere (a bad row, a lost connection, a check that disagrees)
 * leaves the target as empty as it was; the SQLite side is read in one read transaction (a
 * consistent snapshot, even if a `serve` still writes it; what it writes after is not copied).
 */

interface CopiedTable {
  name: string;
  /** The columns rows are read and written in (a key, unique): keyset pages in that order. */
  order: readonly string[];
  /** Rows of SQLite's that mean nothing on PostgreSQL (SQL on the SQLite side, no parameters). */
  skip?: string;
}

/**
 * Every table of SQLite's schema at SCHEMA_VERSION, parents before the tables that refer to them.
 * A table SQLite has and this list lacks stops the copy: a later migration's table cannot be
 * skipped in silence.
 */
const TABLES: readonly CopiedTable[] = [
  // The scrub flag is about SQLite's file (freed pages to VACUUM): nothing to scrub on PostgreSQL.
  { name: "meta", order: ["name"], skip: `name = '${SCRUB_PENDING}'` },
  { name: "accounts", order: ["id"] },
  { name: "api_keys", order: ["id"] },
  { name: "tfa_applications", order: ["id"] },
  { name: "tfa_templates", order: ["id"] },
  { name: "tfa_pins", order: ["id"] },
  { name: "tfa_sends", order: ["id"] },
  { name: "tfa_verify_calls", order: ["id"] },
  { name: "idempotent_requests", order: ["id"] },
  { name: "sync_links", order: ["id"] },
  { name: "sync_keys", order: ["api_key_id"] },
  { name: "sync_outbox", order: ["id"] },
  { name: "key_usage", order: ["api_key_id"] },
  { name: "key_usage_hours", order: ["api_key_id", "hour"] },
  { name: "key_usage_days", order: ["api_key_id", "day"] },
  { name: "audit_entries", order: ["id"] },
  { name: "auth_failures", order: ["address"] },
  // Token digests made with the data key, which the copy keeps: the sessions stay live.
  { name: "ibsso_sessions", order: ["id"] },
];

/**
 * The tables a copy writes, in its order (tests and the CLI name them).
 * @internal Exported for tests.
 */
export const COPIED_TABLES: readonly string[] = TABLES.map((table) => table.name);

/** Rows per INSERT (one unnest of an array per column). */
const COPY_BATCH_ROWS = 1_000;
/** API keys looked up on PostgreSQL after the copy, spread over the id range. */
const COPY_SAMPLE_KEYS = 100;

/** @internal Exported for tests. */
export interface CopyProgress {
  table: string;
  /** Rows of this table copied so far. */
  copied: number;
  /** Rows this table has to copy. */
  total: number;
}

export interface CopyOptions {
  /** The data dir's data key: checked against the source's check value, used to open sampled keys. */
  box: SecretBox;
  /** Told after each batch, and once for an empty table (copied = total = 0). */
  onProgress?: (progress: CopyProgress) => void;
  batchRows?: number;
  sampleKeys?: number;
}

export interface CopyReport {
  /** Rows copied per table, in copy order; each equal on both sides after the copy. */
  tables: Record<string, number>;
  /** API keys looked up by their publicApiKey's digest on PostgreSQL and found identical. */
  sampledKeys: number;
}

/**
 * The copy was not started: the target or the source is not one this copy may take. Nothing written.
 * @internal Exported for tests.
 */
export class CopyRefusedError extends Error {}

/**
 * The copy ran but PostgreSQL does not hold what SQLite does: rolled back, nothing written.
 * @internal Exported for tests.
 */
export class CopyVerificationError extends Error {}

type Value = bigint | number | string | Buffer | null;
type Row = Record<string, Value>;

interface Column {
  name: string;
  /** PostgreSQL's type name (udt_name): int8, int4, text, bool, bytea. */
  type: string;
}

/**
 * Copies everything in `sqliteDb` (a database at SCHEMA_VERSION, as openDataDir leaves it) into
 * the database of `pool`, migrating its schema first. Refuses a target that holds any row.
 */
export async function copySqliteToPostgres(
  sqliteDb: Db,
  pool: pg.Pool,
  options: CopyOptions,
): Promise<CopyReport> {
  checkSource(sqliteDb, options.box);
  await migratePostgres(pool);
  const version = await postgresSchemaVersion(pool);
  if (version !== POSTGRES_SCHEMA_VERSION) {
    throw new CopyRefusedError(
      `the PostgreSQL schema is at version ${version}, this Keydesk writes ${POSTGRES_SCHEMA_VERSION}`,
    );
  }
  // One read transaction: every table read from the same snapshot, whatever another process writes.
  sqliteDb.exec("BEGIN");
  try {
    return await inTransaction(pool, (client) => copyInTransaction(sqliteDb, client, options));
  } finally {
    sqliteDb.exec("ROLLBACK");
  }
}

function checkSource(db: Db, box: SecretBox): void {
  const version = db.pragma("user_version", { simple: true }) as number;
  if (version !== SCHEMA_VERSION) {
    throw new CopyRefusedError(
      `the SQLite database is at schema ${version}, this Keydesk copies schema ${SCHEMA_VERSION}: open it with this Keydesk first`,
    );
  }
  const matches = POSTGRES_MIGRATIONS.at(-1)?.sqliteVersion;
  if (matches !== SCHEMA_VERSION) {
    throw new CopyRefusedError(
      `this Keydesk's PostgreSQL schema matches SQLite schema ${matches}, not ${SCHEMA_VERSION}`,
    );
  }
  const check = readMeta(db, KEY_CHECK);
  if (check !== undefined && check !== box.checkValue) {
    throw new CopyRefusedError("the data key given is not the data key of this SQLite database");
  }
  const tables = (
    db
      .prepare(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .pluck()
      .all() as string[]
  ).filter((name) => !COPIED_TABLES.includes(name));
  if (tables.length > 0) {
    throw new CopyRefusedError(
      `the SQLite database has tables this copy does not know: ${tables.join(", ")} (add them to sqliteToPostgres.ts)`,
    );
  }
}

async function copyInTransaction(db: Db, client: pg.PoolClient, options: CopyOptions): Promise<CopyReport> {
  const batchRows = options.batchRows ?? COPY_BATCH_ROWS;
  const names = TABLES.map((table) => `"${table.name}"`).join(", ");
  // No other writer (a replica started too early) gets a row in between the check and the copy.
  await client.query(`LOCK TABLE ${names} IN EXCLUSIVE MODE`);
  for (const table of TABLES) {
    const { rows } = await client.query(`SELECT EXISTS (SELECT 1 FROM "${table.name}") AS taken`);
    if (rows[0]?.taken) {
      throw new CopyRefusedError(
        `the PostgreSQL database already holds rows in ${table.name}: the copy goes into an empty database only`,
      );
    }
  }
  const tables: Record<string, number> = {};
  for (const table of TABLES) {
    const columns = await columnsOf(db, client, table.name);
    tables[table.name] = await copyTable(db, client, table, columns, batchRows, options.onProgress);
  }
  await verifyCounts(client, tables);
  const sampledKeys = await verifySample(db, client, options.box, options.sampleKeys ?? COPY_SAMPLE_KEYS);
  await moveSequences(client);
  return { tables, sampledKeys };
}

/**
 * New rows on PostgreSQL get ids past every copied one. Last, once everything else succeeded:
 * setval is not undone by a rollback, and a failed copy should leave the sequences as they were.
 */
async function moveSequences(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND is_identity = 'YES' AND table_name = ANY($1::text[])`,
    [COPIED_TABLES],
  );
  for (const { table_name: table, column_name: column } of rows) {
    await client.query(
      `SELECT setval(pg_get_serial_sequence($1, $2), coalesce((SELECT max("${column}") FROM "${table}"), 0) + 1, false)`,
      [table, column],
    );
  }
}

/** The table's columns, which must be the same on both sides (the schema test keeps them so). */
async function columnsOf(db: Db, client: pg.PoolClient, table: string): Promise<Column[]> {
  const sqlite = (db.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map(
    (column) => column.name,
  );
  const { rows } = await client.query<{ name: string; type: string }>(
    `SELECT column_name AS name, udt_name AS type FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  );
  const postgres = rows.map((row) => row.name);
  if ([...sqlite].sort().join() !== [...postgres].sort().join()) {
    throw new CopyRefusedError(
      `the columns of ${table} differ: SQLite has ${sqlite.join(", ")}; PostgreSQL has ${postgres.join(", ")}`,
    );
  }
  return rows;
}

async function copyTable(
  db: Db,
  client: pg.PoolClient,
  table: CopiedTable,
  columns: Column[],
  batchRows: number,
  onProgress: CopyOptions["onProgress"],
): Promise<number> {
  const quoted = (names: readonly string[]) => names.map((name) => `"${name}"`).join(", ");
  const skip = table.skip ? `NOT (${table.skip})` : "1";
  const total = Number(db.prepare(`SELECT count(*) FROM "${table.name}" WHERE ${skip}`).pluck().get());
  const order = quoted(table.order);
  const placeholders = table.order.map(() => "?").join(", ");
  const first = db.prepare(
    `SELECT ${quoted(columns.map((c) => c.name))} FROM "${table.name}" WHERE ${skip} ORDER BY ${order} LIMIT ?`,
  );
  const next = db.prepare(
    `SELECT ${quoted(columns.map((c) => c.name))} FROM "${table.name}"
     WHERE ${skip} AND (${order}) > (${placeholders}) ORDER BY ${order} LIMIT ?`,
  );
  // Exact integers: a number above 2^53 would be rounded on its way through a JavaScript number.
  first.safeIntegers(true);
  next.safeIntegers(true);
  const insert = `INSERT INTO "${table.name}" (${quoted(columns.map((c) => c.name))})
    SELECT * FROM unnest(${columns.map((column, i) => `$${i + 1}::${column.type}[]`).join(", ")})`;
  let copied = 0;
  let after: Value[] | undefined;
  for (;;) {
    const rows = (after ? next.all(...after, batchRows) : first.all(batchRows)) as Row[];
    if (rows.length === 0) break;
    const arrays = columns.map((column) =>
      rows.map((row) => postgresValue(table.name, column, row[column.name])),
    );
    await client.query(insert, arrays);
    copied += rows.length;
    onProgress?.({ table: table.name, copied, total });
    const last = rows[rows.length - 1] as Row;
    after = table.order.map((name) => last[name] as Value);
    if (rows.length < batchRows) break;
  }
  if (copied === 0) onProgress?.({ table: table.name, copied, total });
  return copied;
}

/** A SQLite value as the PostgreSQL column takes it: 0/1 flags become booleans, integers exact text. */
function postgresValue(table: string, column: Column, value: Value | undefined): unknown {
  if (value === null || value === undefined) return null;
  if (column.type === "bool") {
    if (value === 0n || value === 1n) return value === 1n;
    throw new CopyVerificationError(`${table}.${column.name} holds ${String(value)}, not a 0/1 flag`);
  }
  if (typeof value === "bigint") return value.toString();
  return value;
}

async function verifyCounts(client: pg.PoolClient, expected: Record<string, number>): Promise<void> {
  for (const [table, count] of Object.entries(expected)) {
    const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${table}"`);
    if (Number(rows[0]?.n) !== count) {
      throw new CopyVerificationError(
        `${table} holds ${rows[0]?.n} rows on PostgreSQL after copying ${count}: nothing was written`,
      );
    }
  }
}

/**
 * Up to `size` keys spread over the id range, first and last included: each one's grant found
 * on PostgreSQL by the digest SQLite keeps, and the key found by its publicApiKey (unsealed from
 * SQLite with the data key, digested again) equal to SQLite's. Proves the sealed values open and
 * the digest index finds them with this data key on the copy.
 */
async function verifySample(db: Db, client: pg.PoolClient, box: SecretBox, size: number): Promise<number> {
  const ids = db.prepare("SELECT id FROM api_keys ORDER BY id").pluck().all() as number[];
  const picked =
    ids.length <= size
      ? ids
      : [
          ...new Set(
            Array.from(
              { length: size },
              (_, i) => ids[Math.round((i * (ids.length - 1)) / Math.max(size - 1, 1))],
            ),
          ),
        ];
  const read = db.prepare<[number], ApiKeyRow & { public_api_key_digest: Buffer }>(
    `SELECT k.id, k.key, k.account_id, a.account_key, k.name, k.public_api_key_sealed, k.public_api_key_digest,
       k.allowed_ips, k.permissions, k.valid_from, k.valid_to, k.enabled, k.origin_created_at
     FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.id = ?`,
  );
  const keys = postgresApiKeys(sqlOn(client), box, new Set(), () => {});
  for (const id of picked as number[]) {
    const row = read.get(id) as ApiKeyRow & { public_api_key_digest: Buffer };
    const expected = storedApiKeyOf(box, row);
    const grant = await keys.grantByDigest(row.public_api_key_digest);
    const found = await keys.findByPublicApiKey(expected.publicApiKey);
    if (!isDeepStrictEqual(grant, grantOf(row)) || !isDeepStrictEqual(found, expected)) {
      throw new CopyVerificationError(
        `the key with row id ${id} does not read the same on PostgreSQL: nothing was written`,
      );
    }
  }
  const check = readMeta(db, KEY_CHECK);
  const copiedCheck = await client.query<{ value: string }>("SELECT value FROM meta WHERE name = $1", [
    KEY_CHECK,
  ]);
  if (check !== copiedCheck.rows[0]?.value) {
    throw new CopyVerificationError("the data key's check value was not copied: nothing was written");
  }
  return picked.length;
}
