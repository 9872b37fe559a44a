import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import {
  AUDIT_RETENTION_LOCK,
  AuditRetention,
} from "../../../../../electron/service/audit/auditRetention.ts";
import type { ApiKeyFields } from "../../../../../electron/service/domain/apiKeyRecords.ts";
import {
  newAccountKey,
  newKeyId,
  newPublicApiKey,
} from "../../../../../electron/service/domain/identifiers.ts";
import { emptyPending, hourOf } from "../../../../../electron/service/domain/keyUsage.ts";
import { postgresFailure } from "../../../../../electron/service/postgresService.ts";
import { WRITE_RETRIES } from "../../../../../electron/service/store/postgres/postgresStore.ts";
import type { Store } from "../../../../../electron/service/store/store.ts";
import { eventually } from "../../../../harness/eventually.ts";
import { openStore, poolOn, postgresReplica } from "../storeSubjects.ts";

/**
 * What only PostgreSQL's store has to show: nothing secret in clear in any column, and the
 * behaviours that hold across replicas (several stores, each with its pool, on one database).
 */

const NOW = 1_750_000_000_000;
const fields: ApiKeyFields = {
  name: "billing",
  allowedIPs: null,
  permissions: ["ALL"],
  validFrom: null,
  validTo: null,
  enabled: true,
};

async function accountWithKeys(store: Store, count: number) {
  return store.write(async (tx) => {
    const account = await tx.accounts.insert({
      accountKey: newAccountKey(),
      username: "ana",
      passwordHash: "hash",
      parentId: null,
      createdAt: NOW,
    });
    const keys = [];
    for (let index = 0; index < count; index++)
      keys.push(
        await tx.apiKeys.insert(
          account.id,
          account.accountKey,
          { key: newKeyId(), publicApiKey: newPublicApiKey() },
          { ...fields, name: `key ${index}` },
          NOW,
        ),
      );
    return { account, keys };
  });
}

test("no publicApiKey and no sync link password is stored in clear: not in any text or bytea column of any table", async (t) => {
  const subject = await openStore("postgres", t);
  if (!subject) return;
  const { store, url } = subject;
  const { account, keys } = await accountWithKeys(store, 3);
  const [first, second, third] = keys;
  assert.ok(first && second && third);
  const replacement = newPublicApiKey();
  const remotePassword = "the sync link's remote password";
  await store.write(async (tx) => {
    await tx.apiKeys.replacePublicApiKey(first, replacement, NOW);
    // A remembered answer carries the created key's publicApiKey.
    const digest = tx.idempotency.digestOf(account.id, { method: "POST", path: "/keys", body: {} });
    await tx.idempotency.remember(
      account.id,
      "retry-1",
      digest,
      { status: 201, body: JSON.stringify(second) },
      NOW,
    );
    // The sync tables: a link's remote password, a linked key's base and a create's body sent,
    // each given the whole stored key (its publicApiKey included).
    const link = await tx.sync.insertLink({
      accountId: account.id,
      remoteBaseUrl: "https://remote.example",
      remoteUsername: "remote-ana",
      remotePassword,
      remoteAccountKey: "_",
      intervalSeconds: 300,
      now: NOW,
    });
    await tx.sync.insertKeyState({ apiKeyId: second.id, linkId: link.id, remoteKey: "R2", base: second });
    await tx.sync.setBase(second.id, second);
    await tx.sync.queueCreate(link.id, third.id, "idem-3", NOW);
    const [create] = await tx.sync.entriesOfKey(third.id);
    assert.ok(create);
    await tx.sync.recordCreateAttempt(create.id, third, create.fields);
  });
  const secrets = [replacement, remotePassword, ...keys.map((key) => key.publicApiKey)];
  const pool = poolOn(url as string, 1);
  const { rows: columns } = await pool.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT table_name, column_name, data_type FROM information_schema.columns
     WHERE table_schema = 'public' AND data_type IN ('text', 'bytea')`,
  );
  const scanned = new Set(columns.map((column) => `${column.table_name}.${column.column_name}`));
  for (const column of [
    "api_keys.public_api_key_sealed",
    "sync_links.remote_password_sealed",
    "sync_keys.base",
    "sync_outbox.fields",
  ])
    assert.ok(scanned.has(column), `${column} is scanned`);
  for (const table of ["sync_links", "sync_keys", "sync_outbox"]) {
    const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM "${table}"`);
    assert.ok(Number(rows[0]?.n) > 0, `${table} has rows to scan`);
  }
  for (const { table_name: table, column_name: column, data_type: type } of columns) {
    for (const secret of secrets) {
      // bytea compared as bytes, text as text: the value's UTF-8 anywhere inside the column.
      const needle = type === "bytea" ? Buffer.from(secret, "utf8") : secret;
      const { rows } = await pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${table}" WHERE position($1 IN "${column}") > 0`,
        [needle],
      );
      assert.equal(Number(rows[0]?.n), 0, `${table}.${column} holds a secret in clear`);
    }
  }
  // And the rows are there, readable through the store.
  assert.equal((await store.apiKeys.findByPublicApiKey(replacement))?.id, first.id);
  const link = await store.sync.linkOfAccount(account.id);
  assert.ok(link);
  assert.equal(await store.sync.remotePassword(link), remotePassword);
  assert.equal((await store.sync.uncertainCreates(link.id))[0]?.sentBody?.name, third.name);
});

test("an Idempotency-Key retried on another replica waits for the first write's commit, then replays its answer", async (t) => {
  const subject = await openStore("postgres", t);
  if (!subject) return;
  const { store: replicaA, url, box } = subject;
  const replicaB = postgresReplica(url as string, box);
  const { account } = await accountWithKeys(replicaA, 0);
  const digest = replicaA.idempotency.digestOf(account.id, { method: "POST", path: "/keys", body: { n: 1 } });
  const answer = { status: 201, body: '{"key":"first"}' };
  const observer = poolOn(url as string, 1);
  let retried: Promise<unknown> | undefined;
  await replicaA.write(async (tx) => {
    assert.deepEqual(await tx.idempotency.lookup(account.id, "same-key", digest, NOW), { kind: "new" });
    retried = replicaB.write((txB) => txB.idempotency.lookup(account.id, "same-key", digest, NOW + 1));
    // B's lookup is blocked on the (account, key) lock while A's write is open.
    await eventually("replica B waiting on the idempotency lock", async () => {
      const { rows } = await observer.query(
        `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      return rows.length > 0 ? true : undefined;
    });
    await tx.idempotency.remember(account.id, "same-key", digest, answer, NOW);
  });
  assert.deepEqual(await retried, { kind: "replay", answer });
});

test("a key's create queued by two replicas at once is queued once: the second waits for the first's commit and answers false", async (t) => {
  const subject = await openStore("postgres", t);
  if (!subject) return;
  const { store: replicaA, url, box } = subject;
  const replicaB = postgresReplica(url as string, box);
  const {
    account,
    keys: [key],
  } = await accountWithKeys(replicaA, 1);
  assert.ok(key);
  const link = await replicaA.write((tx) =>
    tx.sync.insertLink({
      accountId: account.id,
      remoteBaseUrl: "https://remote.example",
      remoteUsername: "remote-ana",
      remotePassword: "pw",
      remoteAccountKey: "_",
      intervalSeconds: 300,
      now: NOW,
    }),
  );
  const observer = poolOn(url as string, 1);
  let second: Promise<boolean> | undefined;
  const first = await replicaA.write(async (tx) => {
    const queued = await tx.sync.queueCreate(link.id, key.id, "idem-A", NOW);
    second = replicaB.write((txB) => txB.sync.queueCreate(link.id, key.id, "idem-B", NOW + 1));
    // B's insert of the same linked key waits on A's uncommitted row.
    await eventually("replica B waiting on replica A's linked key", async () => {
      const { rows } = await observer.query(
        "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO sync_keys%'",
      );
      return rows.length > 0 ? true : undefined;
    });
    return queued;
  });
  assert.deepEqual([first, await second], [true, false]);
  const entries = await replicaB.sync.entries(link.id);
  assert.deepEqual(
    entries.map((entry) => [entry.kind, entry.idempotencyKey]),
    [["create", "idem-A"]],
  );
});

test("usage batches written by two replicas at once add up", async (t) => {
  const subject = await openStore("postgres", t);
  if (!subject) return;
  const { store: replicaA, url, box } = subject;
  const replicaB = postgresReplica(url as string, box);
  const { keys } = await accountWithKeys(replicaA, 20);
  const batch = (allowed: number) =>
    new Map(
      keys.map((key) => {
        const pending = emptyPending(hourOf(NOW));
        pending.allowed = allowed;
        pending.lastUsedAt = NOW;
        pending.lastUsedFrom = "10.0.0.1";
        return [key.key, pending];
      }),
    );
  await Promise.all(
    Array.from({ length: 10 }, (_, index) =>
      (index % 2 === 0 ? replicaA : replicaB).write((tx) => tx.usage.write(batch(index + 1), NOW)),
    ),
  );
  for (const key of keys) {
    const usage = await replicaB.usage.read(key.id, NOW);
    assert.equal(usage.total.allowed, 55);
    assert.equal(usage.last24Hours.allowed, 55);
  }
});

test("two writes that deadlock both commit: PostgreSQL aborts one, and the store runs it again", async (t) => {
  const subject = await openStore("postgres", t);
  if (!subject) return;
  const { store: replicaA, url, box } = subject;
  const replicaB = postgresReplica(url as string, box);
  const { keys } = await accountWithKeys(replicaA, 2);
  const [one, two] = keys;
  assert.ok(one && two);
  let runs = 0;
  let oneLocked!: () => void;
  let twoLocked!: () => void;
  const aHoldsOne = new Promise<void>((resolve) => {
    oneLocked = resolve;
  });
  const bHoldsTwo = new Promise<void>((resolve) => {
    twoLocked = resolve;
  });
  // A updates one then two; B two then one: each waits for the other's row, a deadlock.
  const a = replicaA.write(async (tx) => {
    runs++;
    await tx.apiKeys.update(one, { ...fields, name: "by A" }, NOW);
    oneLocked();
    await bHoldsTwo;
    await tx.apiKeys.update(two, { ...fields, name: "by A" }, NOW);
  });
  const b = replicaB.write(async (tx) => {
    runs++;
    await aHoldsOne;
    await tx.apiKeys.update(two, { ...fields, name: "by B" }, NOW);
    twoLocked();
    await tx.apiKeys.update(one, { ...fields, name: "by B" }, NOW);
  });
  await Promise.all([a, b]);
  // At least one ran again; on a loaded machine a rerun may meet the other write's locks again and
  // be aborted once more, still within WRITE_RETRIES.
  assert.ok(runs >= 3 && runs <= 2 * (WRITE_RETRIES + 1), `one of the two ran again (${runs} runs)`);
  // Each write is whole: both keys carry the name of the write that committed last.
  const names = new Set([
    (await replicaA.apiKeys.byId(one.id))?.name,
    (await replicaA.apiKeys.byId(two.id))?.name,
  ]);
  assert.equal(names.size, 1);
});

test("a write that keeps losing races is run again at most WRITE_RETRIES times, then rejects", async (t) => {
  const subject = await openStore("postgres", t);
  if (!subject) return;
  const { store } = subject;
  let runs = 0;
  const serializationFailure = Object.assign(new Error("could not serialize access"), { code: "40001" });
  await assert.rejects(
    store.write(async (tx) => {
      runs++;
      await tx.accounts.list();
      throw serializationFailure;
    }),
    (error) => error === serializationFailure,
  );
  assert.equal(runs, WRITE_RETRIES + 1);
  // Any other failure is not run again.
  runs = 0;
  await assert.rejects(
    store.write(async () => {
      runs++;
      throw new Error("a rule refused it");
    }),
  );
  assert.equal(runs, 1);
});

test("ids, times and counts come back as numbers (int8 parsed), not strings", async (t) => {
  const subject = await openStore("postgres", t);
  if (!subject) return;
  const { store } = subject;
  const { account, keys } = await accountWithKeys(store, 1);
  const key = await store.apiKeys.byId((keys[0] as { id: number }).id);
  assert.equal(typeof account.id, "number");
  assert.equal(typeof account.createdAt, "number");
  assert.equal(typeof key?.id, "number");
  assert.equal(typeof key?.createdAt, "number");
  assert.equal(typeof (await store.usage.read(key?.id as number, NOW)).total.allowed, "number");
});

test("idle connections the server ends (a restart, pg_terminate_backend) are dropped, and the next read gets a new one", async (t) => {
  const subject = await openStore("postgres", t);
  if (!subject) return;
  const { store, url } = subject;
  await accountWithKeys(store, 1);
  // Several connections open and idle in the store's pool.
  await Promise.all(Array.from({ length: 4 }, () => store.accounts.list()));
  const admin = poolOn(url as string, 1);
  const { rows } = await admin.query<{ ended: boolean }>(
    `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
     WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
  );
  assert.ok(rows.length > 0 && rows.every((row) => row.ended));
  // Each idle connection's end is an "error" event of the pool: unhandled, it would end this process.
  await eventually("the ended connections to leave the pool", async () => {
    const left = await admin.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
    );
    return left.rows[0]?.n === 0 ? true : undefined;
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(
    (await store.accounts.list()).map((account) => account.username),
    ["ana"],
  );
});

test("a write whose connection is terminated mid-transaction rejects as unavailable, keeps nothing, and the next write gets a new connection", async (t) => {
  const subject = await openStore("postgres", t);
  if (!subject) return;
  const { store, url } = subject;
  const { account } = await accountWithKeys(store, 1);
  const admin = poolOn(url as string, 1);
  const failed = await store
    .write(async (tx) => {
      await tx.apiKeys.insert(
        account.id,
        account.accountKey,
        { key: newKeyId(), publicApiKey: newPublicApiKey() },
        { ...fields, name: "never committed" },
        NOW,
      );
      // The write's own backend, ended from outside while its transaction is open: the lent client
      // emits "error", which, unheard, would end this process.
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'idle in transaction'`,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      return tx.accounts.list();
    })
    .then(
      () => undefined,
      (error: unknown) => error,
    );
  assert.ok(failed, "the write rejected");
  assert.match(postgresFailure(failed) ?? "", /cannot be reached right now/, String(failed));
  const names = await admin.query<{ name: string }>("SELECT name FROM api_keys ORDER BY id");
  assert.deepEqual(
    names.rows.map((row) => row.name),
    ["key 0"],
  );
  await store.write((tx) => tx.accounts.list());
});

test("statements prepared before another replica changed a table's columns are prepared anew: reads and writes go on", async (t) => {
  const subject = await openStore("postgres", t);
  if (!subject) return;
  const { store, url } = subject;
  const { keys } = await accountWithKeys(store, 1);
  const id = (keys[0] as { id: number }).id;
  const readAll = () =>
    Promise.all([
      ...Array.from({ length: 4 }, () => store.usage.read(id, NOW)),
      ...Array.from({ length: 4 }, () => store.write((tx) => tx.usage.read(id, NOW))),
    ]);
  // Prepared on several of the pool's connections: `SELECT * FROM key_usage` returns its columns.
  await readAll();
  // A newer Keydesk's migration, run by another replica during a rolling upgrade.
  const admin = poolOn(url as string, 1);
  await admin.query("ALTER TABLE key_usage ADD COLUMN added_later integer");
  const usages = await readAll();
  assert.equal(usages.length, 8);
  for (const usage of usages) assert.equal(usage.lastUsedAt, null);
});

test("with the same data key, a key sealed on SQLite opens on PostgreSQL and is found by the same digest", async (t) => {
  const dataKey = randomBytes(32);
  const postgres = await openStore("postgres", t, dataKey);
  if (!postgres) return;
  const sqlite = await openStore("sqlite", t, dataKey);
  const db = sqlite?.data?.db;
  assert.ok(sqlite && db);
  const { keys } = await accountWithKeys(sqlite.store, 1);
  const [onSqlite] = keys;
  assert.ok(onSqlite);
  // The rows as they are (what `migrate --from-sqlite` will copy): sealed bytes, digest and all.
  const account = db.prepare("SELECT * FROM accounts").get() as Record<string, unknown>;
  const key = db.prepare("SELECT * FROM api_keys").get() as Record<string, unknown>;
  const pool = poolOn(postgres.url as string, 1);
  await pool.query(
    "INSERT INTO accounts (id, account_key, username, password_hash, created_at) VALUES ($1, $2, $3, $4, $5)",
    [account.id, account.account_key, account.username, account.password_hash, account.created_at],
  );
  await pool.query(
    `INSERT INTO api_keys (id, key, account_id, name, public_api_key_digest, public_api_key_sealed, allowed_ips,
       permissions, valid_from, valid_to, enabled, created_at, updated_at, origin_created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      key.id,
      key.key,
      key.account_id,
      key.name,
      key.public_api_key_digest,
      key.public_api_key_sealed,
      key.allowed_ips,
      key.permissions,
      key.valid_from,
      key.valid_to,
      key.enabled === 1,
      key.created_at,
      key.updated_at,
      key.origin_created_at,
    ],
  );
  assert.deepEqual(await postgres.store.apiKeys.findByPublicApiKey(onSqlite.publicApiKey), onSqlite);
  assert.deepEqual(
    postgres.store.apiKeys.digestOf(onSqlite.publicApiKey),
    sqlite.store.apiKeys.digestOf(onSqlite.publicApiKey),
  );
  assert.equal(
    (await postgres.store.apiKeys.grantByDigest(sqlite.store.apiKeys.digestOf(onSqlite.publicApiKey)))?.key,
    onSqlite.key,
  );
});

test("a database that cannot be reached is not ready, and says so", async (t) => {
  const subject = await openStore("postgres", t);
  if (!subject) return;
  // A loopback port nothing listens on: what a load balancer sees when the database is down.
  const gone = postgresReplica("postgres://keydesk@127.0.0.1:9/keydesk", subject.box);
  await assert.rejects(gone.health.ready(), /ECONNREFUSED|connect/);
});

/** A write on `store` that takes `name` and holds it until `release` is called. */
async function holdingLock(store: Store, name: string) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let took: (locked: boolean) => void = () => {};
  const taken = new Promise<boolean>((resolve) => {
    took = resolve;
  });
  const write = store.write(async (tx) => {
    took(await tx.tryLock(name));
    await released;
  });
  assert.equal(await taken, true);
  return async () => {
    release();
    await write;
  };
}

test("a named lock is held by one replica's write to its end: another replica's tryLock answers false until then", async (t) => {
  const subject = await openStore("postgres", t);
  if (!subject) return;
  const other = postgresReplica(subject.url as string, subject.box);
  const release = await holdingLock(subject.store, "purge");
  assert.equal(await other.write((tx) => tx.tryLock("purge")), false);
  assert.equal(await other.write((tx) => tx.tryLock("another")), true, "another name is another lock");
  await release();
  assert.equal(await other.write((tx) => tx.tryLock("purge")), true);
  assert.equal(await subject.store.write((tx) => tx.tryLock("purge")), true, "released with the write");
});

test("audit retention on two replicas: one prunes at a time, the other skips its round", async (t) => {
  const subject = await openStore("postgres", t);
  if (!subject) return;
  const other = postgresReplica(subject.url as string, subject.box);
  const DAY_MS = 24 * 60 * 60 * 1000;
  const account = await subject.store.write(async (tx) => {
    const account = await tx.accounts.insert({
      accountKey: newAccountKey(),
      username: "ana",
      passwordHash: "hash",
      parentId: null,
      createdAt: NOW,
    });
    for (const at of [NOW - 10 * DAY_MS, NOW - 9 * DAY_MS, NOW]) {
      await tx.audit.append({
        at,
        accountId: account.id,
        actor: "owner",
        channel: "api",
        action: "create",
        reason: null,
        key: `key-${at}`,
        changes: {},
        address: null,
      });
    }
    return account;
  });
  const retention = new AuditRetention(other, { days: 5, now: () => NOW });
  const release = await holdingLock(subject.store, AUDIT_RETENTION_LOCK);
  assert.equal(await retention.prune(), 0, "replica A holds the lock: B's round is skipped");
  assert.equal((await other.audit.page({ managerId: account.id, limit: 10 })).entries.length, 3);
  await release();
  assert.equal(await retention.prune(), 2);
  assert.deepEqual(
    (await other.audit.page({ managerId: account.id, limit: 10 })).entries.map((e) => e.key),
    [`key-${NOW}`],
  );
});
