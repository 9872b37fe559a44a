import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import pg from "pg";
import {
  openDatabase,
  SCHEMA_VERSION,
  USAGE_DAYS_VERSION,
} from "../../../../../electron/service/store/database.ts";
import {
  migratePostgres,
  PostgresSchemaVersionError,
  postgresSchemaVersion,
} from "../../../../../electron/service/store/postgres/migrate.ts";
import {
  POSTGRES_MIGRATIONS,
  POSTGRES_SCHEMA_VERSION,
} from "../../../../../electron/service/store/postgres/schema.ts";
import {
  type PostgresCluster,
  postgresMissing,
  skipWithoutPostgres,
  testPostgres,
} from "../../../../harness/postgres.ts";

/**
 * The PostgreSQL schema is created and upgraded on start, once, whoever starts at the same moment,
 * and it is the SQLite schema's equivalent: same tables, columns, keys and rules.
 */

let cluster: PostgresCluster | undefined;
const pools: pg.Pool[] = [];

before(async () => {
  if (!postgresMissing) cluster = await testPostgres();
});
after(async () => {
  for (const pool of pools) await pool.end();
  cluster?.stop();
});

async function freshPool(max = 2): Promise<{ pool: pg.Pool; url: string }> {
  const url = await (cluster as PostgresCluster).createDatabase();
  const pool = new pg.Pool({ connectionString: url, max });
  pools.push(pool);
  return { pool, url };
}

test("an empty database gets the whole schema, and schema_version says so", async (t) => {
  if (skipWithoutPostgres(t)) return;
  const { pool } = await freshPool();
  assert.deepEqual(await migratePostgres(pool), { from: 0, to: POSTGRES_SCHEMA_VERSION });
  assert.equal(await postgresSchemaVersion(pool), POSTGRES_SCHEMA_VERSION);
  const { rows } = await pool.query("SELECT version FROM schema_version ORDER BY version");
  assert.deepEqual(
    rows.map((row) => row.version),
    POSTGRES_MIGRATIONS.map((_, index) => index + 1),
  );
});

test("migrating a current database again changes nothing", async (t) => {
  if (skipWithoutPostgres(t)) return;
  const { pool } = await freshPool();
  await migratePostgres(pool);
  const before = await pool.query("SELECT version, applied_at FROM schema_version ORDER BY version");
  assert.deepEqual(await migratePostgres(pool), {
    from: POSTGRES_SCHEMA_VERSION,
    to: POSTGRES_SCHEMA_VERSION,
  });
  const afterwards = await pool.query("SELECT version, applied_at FROM schema_version ORDER BY version");
  assert.deepEqual(afterwards.rows, before.rows);
});

test("usage per UTC day starts from the hours a database holds, which it keeps", async (t) => {
  if (skipWithoutPostgres(t)) return;
  const { pool } = await freshPool();
  const daysVersion = POSTGRES_MIGRATIONS.findIndex(
    (migration) => migration.sqliteVersion === USAGE_DAYS_VERSION,
  );
  await migratePostgres(pool, daysVersion);
  await pool.query(`INSERT INTO accounts (id, account_key, username, password_hash, created_at)
    VALUES (1, '${"A".repeat(32)}', 'owner', 'x', 0)`);
  for (const id of [1, 2]) {
    await pool.query(
      `INSERT INTO api_keys (id, key, account_id, name, public_api_key_digest, public_api_key_sealed,
         permissions, enabled, created_at, updated_at)
       VALUES ($1, $2, 1, 'k', $3, '\\x00', '["ALL"]', true, 0, 0)`,
      [id, String(id).repeat(32), Buffer.alloc(32, id)],
    );
  }
  const day = 20_400;
  for (const [id, hour, allowed, expired] of [
    [1, 24 * day - 1, 5, 1],
    [1, 24 * day, 2, 0],
    [1, 24 * day + 23, 3, 4],
    [2, 24 * day + 10, 7, 0],
  ]) {
    await pool.query(
      "INSERT INTO key_usage_hours (api_key_id, hour, allowed, refused_expired) VALUES ($1, $2, $3, $4)",
      [id, hour, allowed, expired],
    );
  }
  await migratePostgres(pool);
  const { rows } = await pool.query(
    `SELECT api_key_id::int AS id, day::int, allowed::int, refused_expired::int AS expired
     FROM key_usage_days ORDER BY id, day`,
  );
  assert.deepEqual(rows, [
    { id: 1, day: day - 1, allowed: 5, expired: 1 },
    { id: 1, day, allowed: 5, expired: 4 },
    { id: 2, day, allowed: 7, expired: 0 },
  ]);
  const hours = await pool.query("SELECT count(*)::int AS n FROM key_usage_hours");
  assert.equal(hours.rows[0].n, 4);
});

test("ten replicas starting at once on one empty database all succeed, and one of them built the schema", async (t) => {
  if (skipWithoutPostgres(t)) return;
  const { url } = await freshPool();
  const replicas = Array.from({ length: 10 }, () => {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    pools.push(pool);
    return pool;
  });
  const results = await Promise.all(replicas.map((pool) => migratePostgres(pool)));
  assert.equal(results.filter((result) => result.from === 0).length, 1, JSON.stringify(results));
  for (const result of results) assert.equal(result.to, POSTGRES_SCHEMA_VERSION);
  assert.equal(await postgresSchemaVersion(replicas[0] as pg.Pool), POSTGRES_SCHEMA_VERSION);
});

test("a database a newer Keydesk wrote is refused, and left as it was", async (t) => {
  if (skipWithoutPostgres(t)) return;
  const { pool } = await freshPool();
  await migratePostgres(pool);
  await pool.query("INSERT INTO schema_version (version, applied_at) VALUES ($1, 0)", [
    POSTGRES_SCHEMA_VERSION + 1,
  ]);
  await assert.rejects(migratePostgres(pool), PostgresSchemaVersionError);
  assert.equal(await postgresSchemaVersion(pool), POSTGRES_SCHEMA_VERSION + 1);
});

test("a migration that fails leaves nothing behind: no table of it, no version", async (t) => {
  if (skipWithoutPostgres(t)) return;
  const { pool } = await freshPool();
  // Something of another application's in the way: the schema's CREATE TABLE accounts fails midway.
  await pool.query("CREATE TABLE accounts (other text)");
  await assert.rejects(
    migratePostgres(pool),
    /^Error: upgrading the PostgreSQL schema to version 1 failed, nothing was changed: relation "accounts" already exists$/,
  );
  assert.equal(await postgresSchemaVersion(pool), 0);
  const { rows } = await pool.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1");
  assert.deepEqual(
    rows.map((row) => row.tablename),
    ["accounts"],
  );
});

test("audit entries are append-only: UPDATE and TRUNCATE are refused, retention's DELETE is not", async (t) => {
  if (skipWithoutPostgres(t)) return;
  const { pool } = await freshPool();
  await migratePostgres(pool);
  await pool.query(
    "INSERT INTO accounts (account_key, username, password_hash, created_at) VALUES ('A', 'owner', 'x', 0)",
  );
  await pool.query(
    `INSERT INTO audit_entries (at, account_id, actor, channel, action, changes)
     VALUES (1, (SELECT id FROM accounts), 'owner', 'api', 'create', '{}'), (2, (SELECT id FROM accounts), 'owner', 'api', 'update', '{}')`,
  );
  await assert.rejects(pool.query("UPDATE audit_entries SET actor = 'someone else'"), /append-only/);
  await assert.rejects(pool.query("TRUNCATE audit_entries"), /append-only/);
  await pool.query("DELETE FROM audit_entries WHERE at < 2");
  const { rows } = await pool.query("SELECT actor, action FROM audit_entries");
  assert.deepEqual(rows, [{ actor: "owner", action: "update" }]);
});

interface Shape {
  columns: string[];
  indexes: string[];
  foreignKeys: string[];
}

function sqliteShape(): Shape {
  const dir = mkdtempSync(join(tmpdir(), "keydesk-pg-shape-"));
  try {
    const db = openDatabase(join(dir, "keydesk.db"));
    const tables = db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all() as { name: string }[];
    const shape: Shape = { columns: [], indexes: [], foreignKeys: [] };
    for (const { name } of tables) {
      for (const column of db.pragma(`table_info(${name})`) as {
        name: string;
        notnull: number;
        pk: number;
      }[])
        shape.columns.push(`${name}.${column.name}${column.notnull || column.pk ? " not null" : ""}`);
      for (const key of db.pragma(`foreign_key_list(${name})`) as {
        from: string;
        table: string;
        to: string;
      }[])
        shape.foreignKeys.push(`${name}.${key.from} -> ${key.table}.${key.to}`);
    }
    const indexes = db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex_%'")
      .all() as { name: string }[];
    shape.indexes = indexes.map((index) => index.name);
    db.close();
    return shape;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgresShape(pool: pg.Pool): Promise<Shape> {
  const columns = await pool.query(
    `SELECT table_name || '.' || column_name || CASE WHEN is_nullable = 'NO' THEN ' not null' ELSE '' END AS c
     FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'schema_version'`,
  );
  const indexes = await pool.query("SELECT indexname AS c FROM pg_indexes WHERE schemaname = 'public'");
  const foreignKeys = await pool.query(
    `SELECT src.relname || '.' || a.attname || ' -> ' || dst.relname || '.' || b.attname AS c
     FROM pg_constraint k
     JOIN pg_class src ON src.oid = k.conrelid JOIN pg_class dst ON dst.oid = k.confrelid
     JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
     JOIN pg_attribute b ON b.attrelid = k.confrelid AND b.attnum = k.confkey[1]
     WHERE k.contype = 'f'`,
  );
  const list = (result: pg.QueryResult) => result.rows.map((row) => row.c as string);
  return { columns: list(columns), indexes: list(indexes), foreignKeys: list(foreignKeys) };
}

test("the schema is SQLite's at its current version: every table, column, NOT NULL, foreign key and index", async (t) => {
  if (skipWithoutPostgres(t)) return;
  assert.equal(
    POSTGRES_MIGRATIONS.at(-1)?.sqliteVersion,
    SCHEMA_VERSION,
    "SQLite's schema has a migration PostgreSQL's lacks: append its equivalent to POSTGRES_MIGRATIONS",
  );
  const { pool } = await freshPool();
  await migratePostgres(pool);
  const sqlite = sqliteShape();
  const postgres = await postgresShape(pool);
  assert.deepEqual(postgres.columns.sort(), sqlite.columns.sort());
  assert.deepEqual(postgres.foreignKeys.sort(), sqlite.foreignKeys.sort());
  const missing = sqlite.indexes.filter((index) => !postgres.indexes.includes(index));
  assert.deepEqual(missing, [], "indexes of the SQLite schema that PostgreSQL's lacks");
});

test("names sort as SQLite's NOCASE sorts them (ASCII case folding, then bytes), whatever the locale", async (t) => {
  if (skipWithoutPostgres(t)) return;
  const { pool } = await freshPool();
  await migratePostgres(pool);
  const names = [
    "beta",
    "Alpha",
    "alpha",
    "Ärger",
    "zeta",
    "Zebra",
    "_under",
    "éclair",
    "Éclair",
    "10",
    "9",
    "",
  ];
  const { rows } = await pool.query(
    `SELECT name FROM unnest($1::text[]) WITH ORDINALITY AS n(name, id)
     ORDER BY keydesk_ascii_fold(name) COLLATE "C", id`,
    [names],
  );
  const dir = mkdtempSync(join(tmpdir(), "keydesk-pg-nocase-"));
  try {
    const db = openDatabase(join(dir, "keydesk.db"));
    const sqlite = db
      .prepare("SELECT value AS name FROM json_each(?) ORDER BY value COLLATE NOCASE, key")
      .all(JSON.stringify(names)) as { name: string }[];
    db.close();
    assert.deepEqual(
      rows.map((row) => row.name),
      sqlite.map((row) => row.name),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
