import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import pg from "pg";
import { AppKeyAuthorizer } from "../../../../../electron/service/auth/appKeyAuthorizer.ts";
import type { Account } from "../../../../../electron/service/domain/accounts.ts";
import type { StoredApiKey } from "../../../../../electron/service/domain/apiKeyRecords.ts";
import {
  newAccountKey,
  newKeyId,
  newPublicApiKey,
} from "../../../../../electron/service/domain/identifiers.ts";
import { ApiError } from "../../../../../electron/service/errors.ts";
import {
  CHANGES_CHANNEL,
  PostgresChangeFeed,
} from "../../../../../electron/service/store/postgres/postgresChangeFeed.ts";
import type { Store } from "../../../../../electron/service/store/store.ts";
import { PinEvents } from "../../../../../electron/service/tfa/pinEvents.ts";
import { TfaApplications } from "../../../../../electron/service/tfa/tfaApplications.ts";
import { TfaPins } from "../../../../../electron/service/tfa/tfaPins.ts";
import { eventually } from "../../../../harness/eventually.ts";
import { startSilentProxy } from "../../../../harness/silentProxy.ts";
import { openStore, postgresReplica } from "../storeSubjects.ts";

/**
 * Caches across replicas: two PostgresStores on one database (replica A writes, replica B serves
 * from its caches, the service's own AppKeyAuthorizer and TfaPins on B). A change committed through
 * A reaches B as a LISTEN/NOTIFY notification naming the row, which B's caches drop; while B's LISTEN
 * connection is down, B keeps nothing and reads the database on every lookup.
 *
 * "At once" is: as soon as B has heard the commit's notification (the tests wait for that, it is what
 * B learns the change by), with no other wait; during an outage, at once after A's write answered.
 */

const call = { now: Date.now(), clientAddress: "127.0.0.1", tfaMethod: false };
const fields = { name: "k", allowedIPs: null, permissions: ["ALL" as const], validFrom: null, validTo: null };

/** Resolves when B's feed names a row `matches` accepts (subscribe before the write that changes it). */
function heard<T>(subscribe: (listener: (value: T) => void) => () => void, matches: (value: T) => boolean) {
  return new Promise<void>((resolve) => {
    const unsubscribe = subscribe((value) => {
      if (!matches(value)) return;
      unsubscribe();
      resolve();
    });
  });
}

/** Replica A (the store of a fresh database) and replica B on it, an account and an enabled key made through A. */
async function twoReplicas(t: { skip(message: string): void }) {
  const subject = await openStore("postgres", t);
  if (!subject) return undefined;
  const url = subject.url as string;
  const a = subject.store;
  const replicaName = `replica-b-${randomUUID()}`;
  const b = postgresReplica(url, subject.box, replicaName);
  const publicApiKey = newPublicApiKey();
  const { account, stored } = await a.write(async (tx) => {
    const account = await tx.accounts.insert({
      accountKey: newAccountKey(),
      username: "owner",
      passwordHash: "first hash",
      parentId: null,
      createdAt: 0,
    });
    const stored = await tx.apiKeys.insert(
      account.id,
      account.accountKey,
      { key: newKeyId(), publicApiKey },
      { ...fields, enabled: true },
      0,
    );
    return { account, stored };
  });
  const authorizer = new AppKeyAuthorizer(b.changes, b.apiKeys, b.accounts);
  await b.changes.whenListening();
  return { url, a, b, replicaName, account, stored, publicApiKey, authorizer };
}

/** Authorizes through B twice: the first reads the store, the second is served from B's cache. */
async function cachedOnB(authorizer: AppKeyAuthorizer, publicApiKey: string) {
  const first = authorizer.authorize(publicApiKey, call);
  assert.ok(first instanceof Promise, "the first call reads the store");
  await first;
  const second = authorizer.authorize(publicApiKey, call);
  assert.ok(!(second instanceof Promise), "the second call is served from memory");
  return second;
}

const disable = (a: Store, stored: StoredApiKey) =>
  a.write((tx) => tx.apiKeys.update(stored, { ...fields, enabled: false }, 1));

async function refusedWith(outcome: unknown, status: number): Promise<void> {
  await assert.rejects(
    Promise.resolve().then(() => outcome),
    (error) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.status, status);
      return true;
    },
  );
}

/** Ends B's LISTEN connection from the server's side, as a failover or an operator would. */
async function terminateListenConnection(url: string, replicaName: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
       WHERE datname = current_database() AND application_name = $1 AND query = $2`,
      [replicaName, `LISTEN ${CHANGES_CHANNEL}`],
    );
    assert.deepEqual(
      rows.map((row) => row.ended),
      [true],
    );
  } finally {
    await client.end();
  }
}

test("a key disabled through replica A is refused by replica B, which had it cached, on its very next call", async (t) => {
  const setup = await twoReplicas(t);
  if (!setup) return;
  const { a, b, stored, publicApiKey, authorizer } = setup;
  await cachedOnB(authorizer, publicApiKey);
  const notified = heard(b.changes.onKeyChange.bind(b.changes), (digest) =>
    digest.equals(b.apiKeys.digestOf(publicApiKey)),
  );
  await disable(a, stored);
  await notified;
  await refusedWith(authorizer.authorize(publicApiKey, call), 403);
});

test("with B's LISTEN connection killed, B reads the store on every call (a key disabled on A is refused at once), and caches again once listening", async (t) => {
  const setup = await twoReplicas(t);
  if (!setup) return;
  const { url, a, b, replicaName, stored, publicApiKey, authorizer } = setup;
  await cachedOnB(authorizer, publicApiKey);

  await terminateListenConnection(url, replicaName);
  await eventually("B to notice its LISTEN connection dropped", async () =>
    b.changes.listening ? undefined : true,
  );
  await disable(a, stored);
  // No notification can reach B now: it reads the store, and refuses.
  const next = authorizer.authorize(publicApiKey, call);
  assert.ok(next instanceof Promise, "the cache is bypassed");
  await refusedWith(next, 403);

  await b.changes.whenListening();
  await refusedWith(authorizer.authorize(publicApiKey, call), 403);
  // Listening again: the refusal read above was kept, and is served from memory.
  assert.throws(
    () => authorizer.authorize(publicApiKey, call),
    (error) => error instanceof ApiError && error.status === 403,
  );
});

test("a LISTEN connection gone silent (never closed, never answering) is dropped by its heartbeat: a key disabled on A meanwhile is refused by B, which listens anew", async (t) => {
  const setup = await twoReplicas(t);
  if (!setup) return;
  const { url, a, b, stored, publicApiKey } = setup;
  const server = new URL(url);
  const proxy = await startSilentProxy(server.hostname, Number(server.port));
  t.after(() => proxy.close());
  const throughProxy = new URL(url);
  throughProxy.port = String(proxy.port);
  // B's feed on a connection through the proxy, with a short heartbeat (the service's: 5 s and 5 s).
  const feed = new PostgresChangeFeed(
    { connectionString: throughProxy.toString() },
    { intervalMs: 100, timeoutMs: 300 },
  );
  t.after(() => feed.close());
  const authorizer = new AppKeyAuthorizer(feed, b.apiKeys, b.accounts);
  await feed.whenListening();
  await cachedOnB(authorizer, publicApiKey);
  proxy.silence();
  // The notification of this commit never reaches B's silent connection, and TCP reports nothing.
  await disable(a, stored);
  await eventually("B's feed to listen anew on another connection", async () =>
    proxy.connections >= 2 && feed.listening ? true : undefined,
  );
  await refusedWith(authorizer.authorize(publicApiKey, call), 403);
});

test("while B is not listening nothing it loads is kept: every call reads the store", async (t) => {
  const setup = await twoReplicas(t);
  if (!setup) return;
  const { url, b, replicaName, publicApiKey, authorizer } = setup;
  await terminateListenConnection(url, replicaName);
  await eventually("B to notice its LISTEN connection dropped", async () =>
    b.changes.listening ? undefined : true,
  );
  const generation = b.changes.generation();
  assert.notEqual(b.changes.generation(), generation, "the generation moves on every look");
  // Whether or not B is back by now, a call that began before it listened again is not kept.
  const first = authorizer.authorize(publicApiKey, call);
  assert.ok(first instanceof Promise);
  await first;
  await b.changes.whenListening();
  await cachedOnB(authorizer, publicApiKey);
});

test("an account's password changed through A: B's next call through a cached key acts for the account as it is now", async (t) => {
  const setup = await twoReplicas(t);
  if (!setup) return;
  const { a, b, account, publicApiKey, authorizer } = setup;
  assert.equal((await cachedOnB(authorizer, publicApiKey)).account.passwordHash, "first hash");
  const notified = heard(b.changes.onAccountChange.bind(b.changes), (id) => id === account.id);
  await a.write((tx) => tx.accounts.setPasswordHash(account.id, "second hash"));
  await notified;
  const next = authorizer.authorize(publicApiKey, call);
  assert.ok(next instanceof Promise, "the account's entries were dropped");
  assert.equal((await next).account.passwordHash, "second hash");
});

test("a key's publicApiKey replaced through A: B refuses the old value at once and authorizes the new one", async (t) => {
  const setup = await twoReplicas(t);
  if (!setup) return;
  const { a, b, stored, publicApiKey, authorizer } = setup;
  await cachedOnB(authorizer, publicApiKey);
  const replacement = newPublicApiKey();
  const notified = heard(b.changes.onKeyChange.bind(b.changes), (digest) =>
    digest.equals(b.apiKeys.digestOf(publicApiKey)),
  );
  await a.write((tx) => tx.apiKeys.replacePublicApiKey(stored, replacement, 1));
  await notified;
  await refusedWith(authorizer.authorize(publicApiKey, call), 401);
  assert.equal((await authorizer.authorize(replacement, call)).grant.key, stored.key);
});

test("a write that rolls back notifies nothing: B keeps serving its cached entry", async (t) => {
  const setup = await twoReplicas(t);
  if (!setup) return;
  const { a, b, account, stored, publicApiKey, authorizer } = setup;
  await cachedOnB(authorizer, publicApiKey);
  await assert.rejects(
    a.write(async (tx) => {
      await tx.apiKeys.update(stored, { ...fields, enabled: false }, 1);
      throw new Error("changed my mind");
    }),
    /changed my mind/,
  );
  // Notifications arrive in commit order: once a later commit's is heard, the rolled-back write's
  // would have been heard before it.
  const marker = heard(b.changes.onAccountChange.bind(b.changes), (id) => id !== account.id);
  await a.write((tx) =>
    tx.accounts.insert({
      accountKey: newAccountKey(),
      username: "another",
      passwordHash: "h",
      parentId: null,
      createdAt: 0,
    }),
  );
  await marker;
  const next = authorizer.authorize(publicApiKey, call);
  assert.ok(!(next instanceof Promise), "still served from memory");
  assert.equal(next.grant.enabled, true);
});

/** The 2FA simulator as one replica runs it on `store`. */
function tfaOn(store: Store) {
  const applications = new TfaApplications(store);
  return { applications, pins: new TfaPins(applications, store, new PinEvents()) };
}

async function pinSentThroughA(a: Store, account: Account) {
  const tfa = tfaOn(a);
  const { applicationId } = await tfa.applications.create(account, {
    name: "login",
    configuration: { pinAttempts: 5, verifyPinLimit: "1000/1s" },
  });
  const { messageId } = await tfa.applications.createTemplate(account, applicationId, {
    messageText: "Your Keydesk code is {{pin}}",
    pinType: "NUMERIC",
    pinLength: 6,
  });
  const { pinId } = await tfa.pins.sendSms(account, {}, { applicationId, messageId, to: "41790000001" });
  const pin = (await a.tfaPins.record(pinId))?.pin as string;
  return { pins: tfa.pins, pinId, pin };
}

test("a wrong PIN and then the right one verified through A are seen at once by B's PIN status, which had it cached", async (t) => {
  const setup = await twoReplicas(t);
  if (!setup) return;
  const { a, b, account } = setup;
  const onB = tfaOn(b);
  const { pins: onA, pinId, pin } = await pinSentThroughA(a, account);
  assert.deepEqual(await onB.pins.status(account, pinId), await onB.pins.status(account, pinId));
  assert.equal((await onB.pins.status(account, pinId)).attemptsRemaining, 5);

  const pinChanged = () => heard(b.changes.onPinChange.bind(b.changes), (id) => id === pinId);
  let notified = pinChanged();
  await onA.verify(account, pinId, { pin: pin === "000000" ? "111111" : "000000" });
  await notified;
  const afterWrong = await onB.pins.status(account, pinId);
  assert.equal(afterWrong.attemptsRemaining, 4);
  assert.equal(afterWrong.verified, false);

  notified = pinChanged();
  await onA.verify(account, pinId, { pin });
  await notified;
  assert.equal((await onB.pins.status(account, pinId)).verified, true);
});

test("B is told when each of A's writes was sent, after its changes: how late B hears them (the metrics)", async (t) => {
  const setup = await twoReplicas(t);
  if (!setup) return;
  const { a, b, stored, publicApiKey } = setup;
  const order: string[] = [];
  const stopKeys = b.changes.onKeyChange((digest) => {
    if (digest.equals(b.apiKeys.digestOf(publicApiKey))) order.push("key");
  });
  const sent: number[] = [];
  const stopHearing = b.changes.onChangesHeard((sentAt) => {
    sent.push(sentAt);
    order.push("sent");
  });
  try {
    const before = Date.now();
    await disable(a, stored);
    const after = Date.now();
    await eventually("B to hear when A's write was sent", async () => (sent.length > 0 ? true : undefined));
    // Sent inside the write, before its commit: between its start and its answer (one machine's clock).
    assert.ok(
      (sent[0] as number) >= before && (sent[0] as number) <= after,
      `${sent[0]} in ${before}..${after}`,
    );
    assert.deepEqual(order, ["key", "sent"], "a write's changes first, then when it was sent");
    assert.equal(b.changes.listening, true);
  } finally {
    stopKeys();
    stopHearing();
  }
});

test("a payload of an older replica (no sent time) is still read, and a malformed sent time is ignored", async (t) => {
  const setup = await twoReplicas(t);
  if (!setup) return;
  const { url, b, account } = setup;
  const sent: number[] = [];
  const stopHearing = b.changes.onChangesHeard((sentAt) => sent.push(sentAt));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const named = heard(b.changes.onAccountChange.bind(b.changes), (id) => id === account.id);
    await client.query("SELECT pg_notify($1, $2), pg_notify($1, $3), pg_notify($1, $4)", [
      CHANGES_CHANNEL,
      "sent:soon",
      "sent:",
      `account:${account.id}`,
    ]);
    await named;
    assert.deepEqual(sent, []);
  } finally {
    stopHearing();
    await client.end();
  }
});
