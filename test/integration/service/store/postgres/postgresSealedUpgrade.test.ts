import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import pg from "pg";
import { DataKeyError } from "../../../../../electron/service/crypto/dataKey.ts";
import { legacyGcmOpener } from "../../../../../electron/service/crypto/legacySealedValues.ts";
import { createSecretBox, hasSealedFormat } from "../../../../../electron/service/crypto/secretBox.ts";
import { openPostgresService } from "../../../../../electron/service/postgresService.ts";
import {
  migratePostgres,
  postgresSchemaVersion,
} from "../../../../../electron/service/store/postgres/migrate.ts";
import { POSTGRES_SCHEMA_VERSION } from "../../../../../electron/service/store/postgres/schema.ts";
import { KEY_CHECK, LEGACY_SEALING } from "../../../../../electron/service/store/sealedColumns.ts";
import { sealLegacy } from "../../../../harness/legacySealing.ts";
import {
  type PostgresCluster,
  postgresMissing,
  skipWithoutPostgres,
  testPostgres,
} from "../../../../harness/postgres.ts";

/**
 * A PostgreSQL database an earlier Keydesk sealed with AES-256-GCM (schema 4) is sealed again with
 * XChaCha20-Poly1305 by the replicas that start on it: once, in one transaction, whoever starts
 * first; every secret still opens afterwards.
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

const PUBLIC_API_KEY = "0123456789abcdef0123456789abcdef-01234567-89ab-4def-8123-456789abcdef";
const KEY_ID = "79472B55D3F4177C14E7983276CE1F98";

/** A database as schema 4 left it, with a key, a sync link and an idempotent create sealed the old way. */
async function legacyDatabase(dataKey: Buffer): Promise<{ url: string; pool: pg.Pool }> {
  const url = await (cluster as PostgresCluster).createDatabase();
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pools.push(pool);
  await migratePostgres(pool, 4);
  const box = createSecretBox(dataKey);
  await pool.query("INSERT INTO meta (name, value) VALUES ($1, $2)", [KEY_CHECK, box.checkValue]);
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO accounts (account_key, username, password_hash, created_at)
     VALUES ('A2E02EA208AC6BF5D2B0CF19AAAD5961', 'owner', 'x', 1) RETURNING id`,
  );
  const accountId = Number(rows[0]?.id);
  await pool.query(
    `INSERT INTO api_keys (key, account_id, name, public_api_key_digest, public_api_key_sealed, permissions,
       enabled, created_at, updated_at, origin_created_at)
     VALUES ($1, $2, 'old key', $3, $4, '["ALL"]', true, 1, 1, 1)`,
    [KEY_ID, accountId, box.digest(PUBLIC_API_KEY), sealLegacy(dataKey, PUBLIC_API_KEY, KEY_ID)],
  );
  await pool.query(
    `INSERT INTO sync_links (account_id, remote_base_url, remote_username, remote_password_sealed,
       remote_account_key, interval_seconds, created_at)
     VALUES ($1, 'http://127.0.0.1:9', 'remote', $2, '_', 60, 1)`,
    [accountId, sealLegacy(dataKey, "remote password", `sync-link-password:${accountId}`)],
  );
  await pool.query(
    `INSERT INTO idempotent_requests (account_id, idempotency_key, request_digest, status, response_sealed, created_at)
     VALUES ($1, 'retry-1', $2, 200, $3, $4)`,
    [
      accountId,
      randomBytes(32),
      sealLegacy(dataKey, '{"answer":1}', `idempotent-request/${accountId}/retry-1`),
      Date.now(),
    ],
  );
  return { url, pool };
}

test("replicas starting at once on a database sealed with AES-256-GCM seal it again once, and every secret opens", async (t) => {
  if (skipWithoutPostgres(t)) return;
  const dataKey = randomBytes(32);
  const { url, pool } = await legacyDatabase(dataKey);
  const replicas = await Promise.all([
    openPostgresService({ databaseUrl: url, dataKey }),
    openPostgresService({ databaseUrl: url, dataKey }),
  ]);
  try {
    assert.equal(await postgresSchemaVersion(pool), POSTGRES_SCHEMA_VERSION);
    const flag = await pool.query("SELECT 1 FROM meta WHERE name = $1", [LEGACY_SEALING]);
    assert.equal(flag.rowCount, 0, "the upgrade is recorded as done");
    const { rows } = await pool.query<{ sealed: Buffer }>(
      `SELECT public_api_key_sealed AS sealed FROM api_keys
       UNION ALL SELECT remote_password_sealed FROM sync_links
       UNION ALL SELECT response_sealed FROM idempotent_requests`,
    );
    assert.equal(rows.length, 3);
    for (const row of rows) assert.ok(hasSealedFormat(row.sealed), "sealed with XChaCha20-Poly1305");
    for (const { store } of replicas) {
      const key = await store.apiKeys.findByPublicApiKey(PUBLIC_API_KEY);
      assert.equal(key?.key, KEY_ID);
      assert.equal(key?.publicApiKey, PUBLIC_API_KEY);
      const link = (await store.sync.links())[0];
      assert.ok(link);
      assert.equal(await store.sync.remotePassword(link), "remote password");
    }
  } finally {
    for (const replica of replicas) await replica.close();
  }
});

test("a value that does not open stops the upgrade with its place named, and nothing is rewritten", async (t) => {
  if (skipWithoutPostgres(t)) return;
  const dataKey = randomBytes(32);
  const { url, pool } = await legacyDatabase(dataKey);
  await pool.query("UPDATE sync_links SET remote_password_sealed = $1", [randomBytes(40)]);
  await assert.rejects(
    openPostgresService({ databaseUrl: url, dataKey }),
    /sync_links\.remote_password_sealed of row \d+ does not open/,
  );
  const { rows } = await pool.query<{ sealed: Buffer }>(
    "SELECT public_api_key_sealed AS sealed FROM api_keys",
  );
  assert.equal(
    legacyGcmOpener(dataKey)(rows[0]?.sealed ?? Buffer.alloc(0), KEY_ID),
    PUBLIC_API_KEY,
    "the key is still sealed as it was",
  );
  const flag = await pool.query("SELECT 1 FROM meta WHERE name = $1", [LEGACY_SEALING]);
  assert.equal(flag.rowCount, 1, "still to be done");
});

test("a replica given another data key leaves the older database as it was: no upgrade begun", async (t) => {
  if (skipWithoutPostgres(t)) return;
  const { url, pool } = await legacyDatabase(randomBytes(32));
  await assert.rejects(openPostgresService({ databaseUrl: url, dataKey: randomBytes(32) }), DataKeyError);
  assert.equal(await postgresSchemaVersion(pool), 4);
});

test("without its key check, the database takes only a key that opens its values, and records it", async (t) => {
  if (skipWithoutPostgres(t)) return;
  const dataKey = randomBytes(32);
  const { url, pool } = await legacyDatabase(dataKey);
  await pool.query("DELETE FROM meta WHERE name = $1", [KEY_CHECK]);
  await assert.rejects(
    openPostgresService({ databaseUrl: url, dataKey: randomBytes(32) }),
    /no record of its data key .* does not open them/,
  );
  assert.equal((await pool.query("SELECT 1 FROM meta WHERE name = $1", [KEY_CHECK])).rowCount, 0);
  const service = await openPostgresService({ databaseUrl: url, dataKey });
  await service.close();
  const { rows } = await pool.query<{ value: string }>("SELECT value FROM meta WHERE name = $1", [KEY_CHECK]);
  assert.equal(rows[0]?.value, createSecretBox(dataKey).checkValue);
});
