import assert from "node:assert/strict";
import { after, before, type TestContext, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { newAccountKey } from "../../../electron/service/domain/identifiers.ts";
import type { SyncLink } from "../../../electron/service/domain/syncRecords.ts";
import type { Store } from "../../../electron/service/store/store.ts";
import { SyncEngine, type SyncEngineOptions } from "../../../electron/sync/syncEngine.ts";
import { eventually } from "../../harness/eventually.ts";
import { type ForeignRemote, startForeignRemote } from "../../harness/foreignRemote.ts";
import { openStore, postgresReplica } from "../service/store/storeSubjects.ts";

/**
 * Link leases: two SyncEngines, each on its own PostgresStore (two replicas of one database),
 * with the same link. One runs it at a time; the other takes over when the holder stops or its
 * lease expires. The remote is the spec-only remote of the harness (its list can be made slow).
 */

const LEASE_RETRY_MS = 20;

let remote: ForeignRemote;
before(async () => {
  remote = await startForeignRemote();
});
after(() => remote.close());

interface Replicas {
  a: Store;
  b: Store;
  link: SyncLink;
  /** Which replica ran each run that went through, in order. */
  runs: string[];
  engine(name: "a" | "b", options?: SyncEngineOptions): SyncEngine;
}

/** One database, a linked account, and two replicas of the store on it (undefined: skipped). */
async function replicas(t: TestContext, now = Date.now()): Promise<Replicas | undefined> {
  const subject = await openStore("postgres", t);
  if (!subject?.url) return undefined;
  const a = subject.store;
  const b = postgresReplica(subject.url, subject.box);
  const link = await a.write(async (tx) => {
    const account = await tx.accounts.insert({
      accountKey: newAccountKey(),
      username: "ana",
      passwordHash: "hash",
      parentId: null,
      createdAt: now,
    });
    return tx.sync.insertLink({
      accountId: account.id,
      remoteBaseUrl: remote.url,
      remoteUsername: remote.username,
      remotePassword: remote.password,
      remoteAccountKey: "_",
      intervalSeconds: 300,
      now,
    });
  });
  const runs: string[] = [];
  const engines: SyncEngine[] = [];
  t.after(() => Promise.all(engines.map((engine) => engine.close())));
  return {
    a,
    b,
    link,
    runs,
    engine(name, options = {}) {
      const engine = new SyncEngine(
        { store: name === "a" ? a : b, keyJournals: new Set() },
        {
          leaseRetryMs: LEASE_RETRY_MS,
          ...options,
          onRun: (_link, outcome) => runs.push(`${name}: ${outcome.text}`),
        },
      );
      engines.push(engine);
      return engine;
    },
  };
}

const listsSeen = () =>
  remote.seen.filter((request) =>
    /^GET \/settings\/1\/accounts\/_\/api-keys(\?(?!.*name=).*)?$/.test(request),
  );

test("a link due on two replicas at once runs on one of them", async (t) => {
  const subject = await replicas(t);
  if (!subject) return;
  remote.listDelayMs = 300;
  t.after(() => {
    remote.listDelayMs = 0;
  });
  const engines = { a: subject.engine("a"), b: subject.engine("b") };
  await Promise.all([engines.a.start(), engines.b.start()]);
  const [first] = await eventually("the planned run", async () =>
    subject.runs.length > 0 ? subject.runs : undefined,
  );
  const other = first?.startsWith("a") ? "b" : "a";
  // The other replica's planned run was made; "sync now" there runs once more, after any retry of it.
  remote.listDelayMs = 0;
  await engines[other].runNow(subject.link);
  assert.deepEqual(subject.runs, [first, `${other}: synced`]);
});

test("sync now on a replica while another runs the link waits for it, and runs once the holder stops", async (t) => {
  const subject = await replicas(t);
  if (!subject) return;
  const a = subject.engine("a");
  const b = subject.engine("b");
  const listsBefore = listsSeen().length;
  remote.listDelayMs = 5_000;
  t.after(() => {
    remote.listDelayMs = 0;
  });
  void a.runNow(subject.link).catch(() => undefined);
  await eventually("a's run asking for the remote's list", async () =>
    listsSeen().length > listsBefore ? true : undefined,
  );
  remote.listDelayMs = 0;
  let bAnswered = false;
  const bRun = b.runNow(subject.link).then((dto) => {
    bAnswered = true;
    return dto;
  });
  await delay(LEASE_RETRY_MS * 10);
  assert.equal(bAnswered, false, "b waits while a holds the lease");
  assert.equal(listsSeen().length, listsBefore + 1, "b asked the remote nothing");
  await a.close();
  const dto = await bRun;
  assert.equal(dto.lastError, null);
  assert.deepEqual(subject.runs, ["b: synced"], "a's run was stopped, b's went through");
});

test("a lease whose holder died is taken over once it expires (an injected clock)", async (t) => {
  let now = 1_800_000_000_000;
  const subject = await replicas(t, now);
  if (!subject) return;
  // A replica that took the lease for 60 s and then died.
  assert.equal(
    await subject.a.write((tx) => tx.sync.leaseLink(subject.link.id, "a dead replica", now + 60_000, now)),
    true,
  );
  const b = subject.engine("b", { now: () => now });
  let bAnswered = false;
  const bRun = b.runNow(subject.link).then(() => {
    bAnswered = true;
  });
  await delay(LEASE_RETRY_MS * 10);
  assert.equal(bAnswered, false, "the lease is not expired yet");
  now += 60_000;
  await bRun;
  assert.deepEqual(subject.runs, ["b: synced"]);
});

test("the holder renews its lease during a run longer than the lease", async (t) => {
  const subject = await replicas(t);
  if (!subject) return;
  const leaseMs = 600;
  const a = subject.engine("a", { leaseMs });
  const b = subject.engine("b", { leaseMs });
  const listsBefore = listsSeen().length;
  remote.listDelayMs = leaseMs * 3;
  t.after(() => {
    remote.listDelayMs = 0;
  });
  const aRun = a.runNow(subject.link);
  await eventually("a's run asking for the remote's list", async () =>
    listsSeen().length > listsBefore ? true : undefined,
  );
  remote.listDelayMs = 0;
  const bRun = b.runNow(subject.link);
  await aRun;
  await bRun;
  assert.deepEqual(subject.runs, ["a: synced", "b: synced"], "b ran only after a's run");
});

test("a run whose lease was taken over while it stalled records nothing: no outcome, no entry in the run log", async (t) => {
  let now = 1_800_000_000_000;
  const subject = await replicas(t, now);
  if (!subject) return;
  // A's clock: a renewal would come only after 20 s, so A has not heard of the takeover when it ends.
  const a = subject.engine("a", { now: () => now });
  const listsBefore = listsSeen().length;
  remote.listDelayMs = 400;
  t.after(() => {
    remote.listDelayMs = 0;
  });
  const aRun = a.runNow(subject.link);
  while (listsSeen().length === listsBefore) await delay(5);
  // A stalls past its lease (60 s) while the remote answers; another replica takes the link over.
  now += 60_000;
  const taken = await subject.b.write((tx) =>
    tx.sync.leaseLink(subject.link.id, "another replica", now + 60_000, now),
  );
  assert.equal(taken, true);
  await aRun;
  const link = await subject.b.sync.link(subject.link.id);
  assert.deepEqual(subject.runs, [], "a reported no outcome");
  assert.deepEqual(link?.runLog, [], "a wrote nothing in the run log");
  assert.equal(link?.lastSuccessAt, null);
  assert.equal(listsSeen().length, listsBefore + 1, "a asked the remote once, and stopped");
});
