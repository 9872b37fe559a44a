import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, describe, test } from "node:test";
import pg from "pg";
import { addAccount } from "../../../../electron/service/accountAdmin.ts";
import { createSecretBox } from "../../../../electron/service/crypto/secretBox.ts";
import { type DataDir, KEY_CHECK, openDataDir } from "../../../../electron/service/dataDir.ts";
import { newAccountKey, newKeyId, newPublicApiKey } from "../../../../electron/service/domain/identifiers.ts";
import { buildHttpApp } from "../../../../electron/service/http/app.ts";
import { migratePostgres } from "../../../../electron/service/store/postgres/migrate.ts";
import { PostgresStore } from "../../../../electron/service/store/postgres/postgresStore.ts";
import {
  COPIED_TABLES,
  type CopyProgress,
  CopyRefusedError,
  CopyVerificationError,
  copySqliteToPostgres,
} from "../../../../electron/service/store/sqliteToPostgres.ts";
import { createOutboxJournal } from "../../../../electron/sync/outboxJournal.ts";
import { basic, makeTempDir, removeDir } from "../../../harness/keyServiceProcess.ts";
import { type PostgresCluster, skipWithoutPostgres, testPostgres } from "../../../harness/postgres.ts";

/**
 * `migrate --from-sqlite`'s core: a SQLite data dir written by the real service (accounts by the
 * CLI's addAccount, keys, updates, Idempotency-Keys, 2FA and App-authorized calls through the HTTP
 * app, a sync link whose outbox the key writes fill) copied into PostgreSQL and read back through
 * a PostgresStore with the same data key.
 */

const REMOTE_PASSWORD = "remote-secret-pw-1";
const ORDER: Record<string, string> = {
  meta: "name",
  sync_keys: "api_key_id",
  key_usage: "api_key_id",
  key_usage_hours: "api_key_id, hour",
  key_usage_days: "api_key_id, day",
  auth_failures: "address",
};

let cluster: Promise<PostgresCluster> | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  if (cluster) (await cluster).stop();
});

/** A fresh, empty database of this file's cluster and a pool on it; undefined where PostgreSQL is missing. */
async function emptyTarget(t: {
  skip(message: string): void;
}): Promise<{ pool: pg.Pool; url: string } | undefined> {
  if (skipWithoutPostgres(t)) return undefined;
  cluster ??= testPostgres();
  const url = await (await cluster).createDatabase();
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  cleanups.push(() => pool.end());
  return { pool, url };
}

async function openFreshDataDir(): Promise<{ data: DataDir; dataKey: Buffer }> {
  const dir = await makeTempDir("keydesk-copy-");
  const dataKey = randomBytes(32);
  const data = openDataDir({ dataDir: dir, dataKey });
  cleanups.push(async () => {
    data.close();
    await removeDir(dir);
  });
  return { data, dataKey };
}

interface Seeded {
  data: DataDir;
  dataKey: Buffer;
  publicApiKeys: string[];
  pinIds: string[];
  accountIds: number[];
  /** IBSSO session tokens (the database holds their digests). */
  sessionTokens: string[];
}

/** A data dir with a row in every table, written through the service's own code paths. */
async function seededDataDir(): Promise<Seeded> {
  const { data, dataKey } = await openFreshDataDir();
  const ana = await addAccount(data.store, { username: "ana", password: "ana-secret-1" });
  const bob = await addAccount(data.store, {
    username: "bob",
    password: "bob-secret-1",
    parentUsername: "ana",
  });
  await data.store.write((tx) =>
    tx.sync.insertLink({
      accountId: bob.id,
      remoteBaseUrl: "https://remote.example",
      remoteUsername: "remote-bob",
      remotePassword: REMOTE_PASSWORD,
      remoteAccountKey: "_",
      intervalSeconds: 300,
      now: Date.now(),
    }),
  );
  // A failed sign-in's bucket (the table stays empty under a SQLite service, which counts in memory).
  for (const address of ["192.0.2.9", "2001:db8::9"])
    await data.store.write((tx) => tx.authFailures.save(address, { tokens: 9, updatedAt: Date.now() }));
  // What electron/sync registers: bob's key writes queue outbox entries in their own write.
  data.keyJournals.add(createOutboxJournal(Date.now, () => {}));
  const { app } = buildHttpApp(data, { logLevel: "silent", keyListWorker: null });
  const call = async (method: string, url: string, authorization: string, body?: unknown, headers = {}) => {
    const res = await app.inject({
      method: method as "GET",
      url,
      headers: {
        authorization,
        ...(body !== undefined && { "content-type": "application/json" }),
        ...headers,
      },
      ...(body !== undefined && { payload: JSON.stringify(body) }),
    });
    assert.equal(res.statusCode, 200, `${method} ${url}: ${res.body}`);
    return res.json() as Record<string, unknown>;
  };
  const anaAuth = basic("ana", "ana-secret-1");
  const publicApiKeys: string[] = [];
  const pinIds: string[] = [];
  const sessionTokens: string[] = [];
  try {
    for (let i = 0; i < 12; i++) {
      const accountKey = i % 3 === 0 ? bob.accountKey : "_";
      const key = await call(
        "POST",
        `/settings/1/accounts/${accountKey}/api-keys`,
        anaAuth,
        { name: `key ${i}`, permissions: ["ALL"], ...(i % 4 === 1 && { allowedIPs: ["127.0.0.1"] }) },
        { "idempotency-key": `create-${i}` },
      );
      publicApiKeys.push(key.publicApiKey as string);
      if (i % 3 === 0) {
        await call("PUT", `/settings/1/accounts/${accountKey}/api-keys/${key.key}`, anaAuth, {
          name: `key ${i} renamed`,
          permissions: ["ALL"],
          enabled: i !== 3,
        });
      }
    }
    const appAuth = `App ${publicApiKeys[1]}`;
    for (const [name, to] of [
      ["login", "41793026727"],
      ["payments", "41793026728"],
    ]) {
      const application = await call("POST", "/2fa/2/applications", appAuth, { name });
      // Through another key of ana's: two keys with usage, two rows in each usage table.
      const template = await call(
        "POST",
        `/2fa/2/applications/${application.applicationId}/messages`,
        `App ${publicApiKeys[2]}`,
        { messageText: "Your code is {{pin}}", pinType: "NUMERIC" },
      );
      const ids = { applicationId: application.applicationId, messageId: template.messageId };
      const sent = await call("POST", "/2fa/2/pin", appAuth, { ...ids, to });
      pinIds.push(sent.pinId as string);
    }
    // Two verify calls: verifyPinLimit's table gets two rows.
    for (const pinId of pinIds.slice(0, 2))
      await call("POST", `/2fa/2/pin/${pinId}/verify`, appAuth, { pin: "000000" });
    // An IBSSO session of each account, logged in as the provider's SDK does.
    for (const [username, password] of [
      ["ana", "ana-secret-1"],
      ["bob", "bob-secret-1"],
    ])
      sessionTokens.push(
        (await call("POST", "/auth/1/session", "undefined", { username, password })).token as string,
      );
  } finally {
    // Writes the usage counted so far.
    await app.close();
  }
  return { data, dataKey, publicApiKeys, pinIds, accountIds: [ana.id, bob.id], sessionTokens };
}

/** Every table's rows, values as text (flags 0/1, bytes as hex), in the copy's order. */
async function rowsOnBoth(data: DataDir, url: string, table: string) {
  const order = ORDER[table] ?? "id";
  const text = (value: unknown) =>
    value === null
      ? null
      : Buffer.isBuffer(value)
        ? `x${value.toString("hex")}`
        : typeof value === "boolean"
          ? String(Number(value))
          : String(value);
  const normalized = (rows: Record<string, unknown>[]) =>
    rows.map((row) =>
      Object.fromEntries(
        Object.entries(row)
          .map(([name, value]) => [name, text(value)])
          .sort(),
      ),
    );
  const sqlite = data.db.prepare(`SELECT * FROM "${table}" ORDER BY ${order}`).all() as Record<
    string,
    unknown
  >[];
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const postgres = (await client.query(`SELECT * FROM "${table}" ORDER BY ${order}`)).rows;
    return { sqlite: normalized(sqlite), postgres: normalized(postgres) };
  } finally {
    await client.end();
  }
}

async function countsOn(pool: pg.Pool): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of COPIED_TABLES) {
    counts[table] = Number((await pool.query(`SELECT count(*) AS n FROM "${table}"`)).rows[0].n);
  }
  return counts;
}

const nothing = Object.fromEntries(COPIED_TABLES.map((table) => [table, 0]));

describe("copying a SQLite data dir into PostgreSQL", () => {
  test("copies every row of every table as it is, page after page, and reports the counts and the sample it checked", async (t) => {
    const target = await emptyTarget(t);
    if (!target) return;
    const seeded = await seededDataDir();
    const progress: CopyProgress[] = [];
    const report = await copySqliteToPostgres(seeded.data.db, target.pool, {
      box: seeded.data.box,
      // A page per row: every table with two rows or more goes through the keyset's next pages.
      batchRows: 1,
      onProgress: (step) => progress.push(step),
    });
    assert.deepEqual(Object.keys(report.tables), [...COPIED_TABLES]);
    for (const table of COPIED_TABLES) {
      assert.ok((report.tables[table] ?? 0) > 0, `the seeded data dir has no row in ${table}`);
      if (!["meta", "sync_links"].includes(table))
        assert.ok((report.tables[table] ?? 0) >= 2, `the seeded data dir has one row in ${table}: one page`);
      const { sqlite, postgres } = await rowsOnBoth(seeded.data, target.url, table);
      assert.deepEqual(postgres, sqlite, table);
      assert.equal(report.tables[table], sqlite.length, table);
      const last = progress.filter((step) => step.table === table).at(-1);
      assert.deepEqual(last, { table, copied: sqlite.length, total: sqlite.length });
    }
    assert.equal(report.sampledKeys, seeded.publicApiKeys.length);
  });

  test("a PostgresStore with the same data key reads every key, digest, PIN, link and entry as the SQLite store does", async (t) => {
    const target = await emptyTarget(t);
    if (!target) return;
    const seeded = await seededDataDir();
    await copySqliteToPostgres(seeded.data.db, target.pool, { box: seeded.data.box });
    const sqlite = seeded.data.store;
    const postgres = new PostgresStore(target.pool, createSecretBox(seeded.dataKey));
    assert.equal(await postgres.meta.read(KEY_CHECK), seeded.data.box.checkValue);
    assert.deepEqual(await postgres.accounts.list(), await sqlite.accounts.list());
    const now = Date.now();
    for (const publicApiKey of seeded.publicApiKeys) {
      const key = await postgres.apiKeys.findByPublicApiKey(publicApiKey);
      assert.ok(key, "every key found by its publicApiKey");
      assert.deepEqual(key, await sqlite.apiKeys.findByPublicApiKey(publicApiKey));
      const digest = postgres.apiKeys.digestOf(publicApiKey);
      assert.deepEqual(
        await postgres.apiKeys.grantByDigest(digest),
        await sqlite.apiKeys.grantByDigest(digest),
      );
      assert.deepEqual(await postgres.usage.series(key.id, now), await sqlite.usage.series(key.id, now));
      assert.deepEqual(await postgres.usage.read(key.id, now), await sqlite.usage.read(key.id, now));
    }
    for (const pinId of seeded.pinIds) {
      const record = await postgres.tfaPins.record(pinId);
      assert.ok(record, "every PIN readable");
      assert.deepEqual(record, await sqlite.tfaPins.record(pinId));
    }
    const filter = { accountIds: seeded.accountIds, limit: 50 };
    assert.deepEqual(await postgres.tfaPins.captured(filter), await sqlite.tfaPins.captured(filter));
    const [link] = await postgres.sync.links();
    assert.ok(link);
    assert.deepEqual(await postgres.sync.links(), await sqlite.sync.links());
    assert.equal(await postgres.sync.remotePassword(link), REMOTE_PASSWORD);
    const entries = await postgres.sync.entries(link.id);
    assert.ok(entries.length > 0);
    assert.deepEqual(entries, await sqlite.sync.entries(link.id));
    const page = { managerId: seeded.accountIds[0] as number, limit: 500 };
    assert.deepEqual(await postgres.audit.page(page), await sqlite.audit.page(page));
    for (const token of seeded.sessionTokens) {
      const session = await postgres.ibssoSessions.byDigest(postgres.ibssoSessions.digestOf(token));
      assert.ok(session, "every IBSSO session found by its token: it stays live across the copy");
      assert.deepEqual(session, await sqlite.ibssoSessions.byDigest(sqlite.ibssoSessions.digestOf(token)));
    }
  });

  test("rows written on PostgreSQL after the copy get ids past every copied one", async (t) => {
    const target = await emptyTarget(t);
    if (!target) return;
    const seeded = await seededDataDir();
    await copySqliteToPostgres(seeded.data.db, target.pool, { box: seeded.data.box });
    const postgres = new PostgresStore(target.pool, createSecretBox(seeded.dataKey));
    const largest = async (table: string) =>
      Number((await target.pool.query(`SELECT max(id) AS id FROM "${table}"`)).rows[0].id);
    const [accountsBefore, keysBefore] = [await largest("accounts"), await largest("api_keys")];
    const { account, key } = await postgres.write(async (tx) => {
      const account = await tx.accounts.insert({
        accountKey: newAccountKey(),
        username: "carol",
        passwordHash: "hash",
        parentId: null,
        createdAt: Date.now(),
      });
      const key = await tx.apiKeys.insert(
        account.id,
        account.accountKey,
        { key: newKeyId(), publicApiKey: newPublicApiKey() },
        {
          name: "new",
          allowedIPs: null,
          permissions: ["ALL"],
          validFrom: null,
          validTo: null,
          enabled: true,
        },
        Date.now(),
      );
      return { account, key };
    });
    assert.equal(account.id, accountsBefore + 1);
    assert.equal(key.id, keysBefore + 1);
    // Every other identity too: its next value is past the table's largest copied id.
    const identities = await target.pool.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns
       WHERE table_schema = current_schema() AND column_name = 'id' AND is_identity = 'YES'`,
    );
    assert.ok(identities.rows.length >= 9);
    for (const { table_name: table } of identities.rows) {
      const next = await target.pool.query(`SELECT nextval(pg_get_serial_sequence($1, 'id')) AS id`, [table]);
      assert.ok(Number(next.rows[0].id) > (await largest(table)), table);
    }
  });

  test("a target that holds any row is refused, naming the table, and nothing is written", async (t) => {
    const target = await emptyTarget(t);
    if (!target) return;
    const seeded = await seededDataDir();
    await migratePostgres(target.pool);
    const postgres = new PostgresStore(target.pool, createSecretBox(seeded.dataKey));
    await addAccount(postgres, { username: "early", password: "early-secret-1" });
    const before = await countsOn(target.pool);
    await assert.rejects(
      copySqliteToPostgres(seeded.data.db, target.pool, { box: seeded.data.box }),
      (error) => error instanceof CopyRefusedError && /already holds rows in accounts/.test(error.message),
    );
    assert.deepEqual(await countsOn(target.pool), before);
    assert.deepEqual(before, { ...nothing, accounts: 1, audit_entries: 1 });
  });

  test("a copy that fails half-way leaves the target empty, and a second copy then goes through", async (t) => {
    const target = await emptyTarget(t);
    if (!target) return;
    const seeded = await seededDataDir();
    await migratePostgres(target.pool);
    // The last table refuses its rows: every table before it was already copied in the transaction.
    await target.pool.query(`
      CREATE FUNCTION refuse_row() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'a bad row'; END; $$;
      CREATE TRIGGER refuse BEFORE INSERT ON audit_entries FOR EACH ROW EXECUTE FUNCTION refuse_row();
    `);
    const progress: string[] = [];
    await assert.rejects(
      copySqliteToPostgres(seeded.data.db, target.pool, {
        box: seeded.data.box,
        onProgress: (step) => progress.push(step.table),
      }),
      /a bad row/,
    );
    assert.ok(progress.includes("sync_outbox"), "the tables before audit_entries were copied");
    assert.deepEqual(await countsOn(target.pool), nothing);
    const sequence = await target.pool.query("SELECT last_value, is_called FROM accounts_id_seq");
    assert.deepEqual(sequence.rows[0], { last_value: "1", is_called: false }, "sequences rolled back too");
    await target.pool.query("DROP TRIGGER refuse ON audit_entries");
    const report = await copySqliteToPostgres(seeded.data.db, target.pool, { box: seeded.data.box });
    assert.ok((report.tables.audit_entries ?? 0) > 0);
  });

  test("a copy PostgreSQL does not hold as SQLite does is rolled back: a row lost, a key changed", async (t) => {
    const seeded = await seededDataDir();
    const cases = [
      {
        table: "tfa_sends",
        body: "RETURN NULL;",
        error: /tfa_sends holds 0 rows on PostgreSQL after copying 2/,
      },
      {
        table: "api_keys",
        body: "NEW.name := NEW.name || ' changed'; RETURN NEW;",
        error: /does not read the same on PostgreSQL/,
      },
    ];
    for (const { table, body, error } of cases) {
      const target = await emptyTarget(t);
      if (!target) return;
      await migratePostgres(target.pool);
      await target.pool.query(`
        CREATE FUNCTION spoil_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body} END; $$;
        CREATE TRIGGER spoil BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION spoil_row();
      `);
      await assert.rejects(
        copySqliteToPostgres(seeded.data.db, target.pool, { box: seeded.data.box }),
        (thrown) => thrown instanceof CopyVerificationError && error.test(thrown.message),
      );
      assert.deepEqual(await countsOn(target.pool), nothing, table);
    }
  });

  test("a SQLite table the copy does not know stops it before anything is written", async (t) => {
    const target = await emptyTarget(t);
    if (!target) return;
    const { data } = await openFreshDataDir();
    data.db.exec("CREATE TABLE future_things (id INTEGER PRIMARY KEY)");
    await assert.rejects(
      copySqliteToPostgres(data.db, target.pool, { box: data.box }),
      (error) => error instanceof CopyRefusedError && /future_things/.test(error.message),
    );
    const tables = await target.pool.query("SELECT to_regclass('accounts') AS name");
    assert.equal(tables.rows[0].name, null, "not even the schema was made");
  });

  test("another data key than the data dir's is refused", async (t) => {
    const target = await emptyTarget(t);
    if (!target) return;
    const { data } = await openFreshDataDir();
    await assert.rejects(
      copySqliteToPostgres(data.db, target.pool, { box: createSecretBox(randomBytes(32)) }),
      (error) => error instanceof CopyRefusedError && /not the data key/.test(error.message),
    );
  });

  test("20,000 keys are copied and checked", async (t) => {
    const target = await emptyTarget(t);
    if (!target) return;
    const { data } = await openFreshDataDir();
    const account = await addAccount(data.store, { username: "bulk", password: "bulk-secret-1" });
    const fields = {
      allowedIPs: null,
      permissions: ["ALL" as const],
      validFrom: null,
      validTo: null,
      enabled: true,
    };
    for (let batch = 0; batch < 20; batch++) {
      await data.store.write(async (tx) => {
        for (let i = 0; i < 1_000; i++) {
          await tx.apiKeys.insert(
            account.id,
            account.accountKey,
            { key: newKeyId(), publicApiKey: newPublicApiKey() },
            { ...fields, name: `bulk ${batch * 1_000 + i}` },
            Date.now(),
          );
        }
      });
    }
    const started = performance.now();
    const report = await copySqliteToPostgres(data.db, target.pool, { box: data.box });
    const seconds = (performance.now() - started) / 1_000;
    const rows = Object.values(report.tables).reduce((sum, n) => sum + n, 0);
    t.diagnostic(`${rows} rows in ${seconds.toFixed(2)} s: ${Math.round(rows / seconds)} rows/s`);
    assert.equal(report.tables.api_keys, 20_000);
    assert.equal(report.sampledKeys, 100);
    assert.equal((await countsOn(target.pool)).api_keys, 20_000);
  });
});
