import assert from "node:assert/strict";
import { test } from "node:test";
import { newAccountKey } from "../../../../../electron/service/domain/identifiers.ts";
import {
  ACCOUNT_CACHE_MS,
  CachedAccounts,
} from "../../../../../electron/service/store/postgres/cachedAccounts.ts";
import { postgresAccounts } from "../../../../../electron/service/store/postgres/postgresAccounts.ts";
import type { PostgresStore } from "../../../../../electron/service/store/postgres/postgresStore.ts";
import { sqlOn } from "../../../../../electron/service/store/postgres/sql.ts";
import { eventually } from "../../../../harness/eventually.ts";
import { openStore, poolOn, postgresReplica } from "../storeSubjects.ts";

/**
 * A replica answers account reads by username and id from memory (every Basic-authenticated request
 * reads its account), and forgets an account as soon as any replica changes it: its own writes at
 * once, another replica's when its change feed hears the commit.
 */

async function twoReplicasWithAccount(t: Parameters<typeof openStore>[1]) {
  const subject = await openStore("postgres", t);
  if (!subject) return undefined;
  const replicaA = subject.store as PostgresStore;
  const replicaB = postgresReplica(subject.url as string, subject.box);
  await Promise.all([replicaA.changes.whenListening(), replicaB.changes.whenListening()]);
  // Both replicas hear the account's insert before anything is read (hearing it drops the account).
  const heard = Promise.all([heardAccount(replicaA), heardAccount(replicaB)]);
  const account = await replicaA.write((tx) =>
    tx.accounts.insert({
      accountKey: newAccountKey(),
      username: "ana",
      passwordHash: "hash-1",
      parentId: null,
      createdAt: Date.now(),
    }),
  );
  await heard;
  return { replicaA, replicaB, account, url: subject.url as string };
}

/** Resolves when the replica's change feed names an account (subscribe before the write). */
function heardAccount(replica: PostgresStore, accountId?: number): Promise<void> {
  return new Promise((resolve) => {
    const stop = replica.changes.onAccountChange((id) => {
      if (accountId !== undefined && id !== accountId) return;
      stop();
      resolve();
    });
  });
}

test("an account read once is answered from memory: a change made around the store (no notification) is not seen at once", async (t) => {
  const subject = await twoReplicasWithAccount(t);
  if (!subject) return;
  const { replicaB, account, url } = subject;
  assert.equal((await replicaB.accounts.byUsername("ana"))?.passwordHash, "hash-1");
  assert.equal((await replicaB.accounts.byId(account.id))?.passwordHash, "hash-1");
  await poolOn(url, 1).query("UPDATE accounts SET password_hash = 'changed-around' WHERE id = $1", [
    account.id,
  ]);
  assert.equal((await replicaB.accounts.byUsername("ana"))?.passwordHash, "hash-1");
  assert.equal((await replicaB.accounts.byId(account.id))?.passwordHash, "hash-1");
});

test("a replica's own password change is read at once after its write answered, by username and by id", async (t) => {
  const subject = await twoReplicasWithAccount(t);
  if (!subject) return;
  const { replicaA, account } = subject;
  assert.equal((await replicaA.accounts.byUsername("ana"))?.passwordHash, "hash-1");
  assert.equal((await replicaA.accounts.byId(account.id))?.passwordHash, "hash-1");
  await replicaA.write((tx) => tx.accounts.setPasswordHash(account.id, "hash-2"));
  assert.equal((await replicaA.accounts.byUsername("ana"))?.passwordHash, "hash-2");
  assert.equal((await replicaA.accounts.byId(account.id))?.passwordHash, "hash-2");
});

test("another replica's password change is read once the change feed heard its commit", async (t) => {
  const subject = await twoReplicasWithAccount(t);
  if (!subject) return;
  const { replicaA, replicaB, account } = subject;
  assert.equal((await replicaB.accounts.byUsername("ana"))?.passwordHash, "hash-1");
  const changed = heardAccount(replicaB, account.id);
  await replicaA.write((tx) => tx.accounts.setPasswordHash(account.id, "hash-2"));
  await changed;
  assert.equal((await replicaB.accounts.byUsername("ana"))?.passwordHash, "hash-2");
  assert.equal((await replicaB.accounts.byId(account.id))?.passwordHash, "hash-2");
});

test("while the change feed cannot hear, every read goes to the database", async (t) => {
  const subject = await twoReplicasWithAccount(t);
  if (!subject) return;
  const { replicaB, account, url } = subject;
  assert.equal((await replicaB.accounts.byUsername("ana"))?.passwordHash, "hash-1");
  const admin = poolOn(url, 1);
  await admin.query(
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND datname = current_database()",
  );
  await admin.query("UPDATE accounts SET password_hash = 'changed-around' WHERE id = $1", [account.id]);
  await eventually("replica B reading the change made while it could not hear", async () =>
    (await replicaB.accounts.byUsername("ana"))?.passwordHash === "changed-around" ? true : undefined,
  );
});

test("a change made around the store is read once ACCOUNT_CACHE_MS has passed since the account was read", async (t) => {
  const subject = await twoReplicasWithAccount(t);
  if (!subject) return;
  const { replicaB, account, url } = subject;
  let now = 1_000_000;
  const reads = postgresAccounts(sqlOn(poolOn(url, 1)), () => {});
  const cached = new CachedAccounts(reads, replicaB.changes, () => now);
  assert.equal((await cached.byUsername("ana"))?.passwordHash, "hash-1");
  await poolOn(url, 1).query("UPDATE accounts SET password_hash = 'changed-around' WHERE id = $1", [
    account.id,
  ]);
  now += ACCOUNT_CACHE_MS - 1;
  assert.equal((await cached.byUsername("ana"))?.passwordHash, "hash-1");
  now += 1;
  assert.equal((await cached.byUsername("ana"))?.passwordHash, "changed-around");
  assert.equal((await cached.byId(account.id))?.passwordHash, "changed-around");
  assert.deepEqual(cached.lookups, { hits: 1, misses: 3 });
});
