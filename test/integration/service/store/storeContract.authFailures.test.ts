import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BasicAuthenticator } from "../../../../electron/service/auth/basicAuthenticator.ts";
import { FailureThrottle } from "../../../../electron/service/auth/failureThrottle.ts";
import { SharedFailureThrottle } from "../../../../electron/service/auth/sharedFailureThrottle.ts";
import { VerifiedCredentials } from "../../../../electron/service/auth/verifiedCredentials.ts";
import { hashPassword } from "../../../../electron/service/crypto/passwords.ts";
import type { FailureRule } from "../../../../electron/service/domain/failureBuckets.ts";
import { newAccountKey } from "../../../../electron/service/domain/identifiers.ts";
import { ApiError } from "../../../../electron/service/errors.ts";
import { AUTH_FAILURE_PURGE_BATCH, type Store } from "../../../../electron/service/store/store.ts";
import { openStore, postgresReplica, STORE_KINDS, storedRows } from "./storeSubjects.ts";

/**
 * The failed sign-in throttle's buckets in the store (`tx.authFailures`, through SharedFailureThrottle), asserted identically on
 * SQLite and on PostgreSQL: FailureThrottle's rules (burst, refill, a success gives the attempt
 * back) on stored buckets; and across two replicas of one PostgreSQL database, an address's burst
 * counted once.
 */

const NOW = 1_750_000_000_000;
const RULE: FailureRule = { burst: 3, refillMs: 6_000 };

const take = (store: Store, address: string, now: number) =>
  new SharedFailureThrottle(store, RULE, () => now).take(address);
const refund = (store: Store, address: string, now: number) =>
  new SharedFailureThrottle(store, RULE, () => now).refund(address);

for (const kind of STORE_KINDS) {
  describe(`the ${kind} store's failed sign-in buckets`, () => {
    test("an address has its burst, then waits for the refill; another address is not affected", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      assert.deepEqual(
        [await take(store, "a", NOW), await take(store, "a", NOW), await take(store, "a", NOW)],
        [0, 0, 0],
      );
      assert.equal(await take(store, "a", NOW), 6, "the 4th waits one refill");
      assert.equal(await take(store, "a", NOW + 3_000), 3, "a refused attempt takes nothing");
      assert.equal(await take(store, "b", NOW), 0);
      assert.equal(await take(store, "a", NOW + 6_000), 0, "one attempt refilled");
      assert.equal(await take(store, "a", NOW + 6_000), 6);
    });

    test("a successful sign-in gives its attempt back; a full bucket keeps no row; old buckets are purged", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      await take(store, "a", NOW);
      await take(store, "a", NOW);
      await refund(store, "a", NOW);
      await take(store, "a", NOW);
      await take(store, "a", NOW);
      assert.equal(await take(store, "a", NOW), 6, "two failures and a success leave one attempt");
      await take(store, "b", NOW);
      await refund(store, "b", NOW);
      assert.deepEqual(
        (await storedRows(subject, "auth_failures")).map((row) => row.address),
        ["a"],
        "b's bucket is full again: no row",
      );
      for (let index = 0; index < AUTH_FAILURE_PURGE_BATCH + 5; index++)
        await take(store, `old ${index}`, NOW);
      assert.equal((await storedRows(subject, "auth_failures")).length, AUTH_FAILURE_PURGE_BATCH + 6);
      // Full again by time: each take deletes a batch of them.
      const later = NOW + RULE.burst * RULE.refillMs;
      await take(store, "new", later);
      assert.equal((await storedRows(subject, "auth_failures")).length, 6 + 1);
      await take(store, "new", later);
      assert.deepEqual(
        (await storedRows(subject, "auth_failures")).map((row) => row.address),
        ["new"],
      );
    });

    test("attempts taken at once are each counted once", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const replicas = subject.url
        ? [subject.store, postgresReplica(subject.url, subject.box)]
        : [subject.store];
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, index) => take(replicas[index % replicas.length] as Store, "a", NOW)),
      );
      assert.equal(answers.filter((answer) => answer === 0).length, RULE.burst, String(answers));
    });
  });
}

test("two replicas with the service's own authenticator give an address its burst once", async (t) => {
  const subject = await openStore("postgres", t);
  if (!subject?.url) return;
  const replicas = [subject.store, postgresReplica(subject.url, subject.box)];
  const passwordHash = await hashPassword("the right password");
  await subject.store.write((tx) =>
    tx.accounts.insert({
      accountKey: newAccountKey(),
      username: "ana",
      passwordHash,
      parentId: null,
      createdAt: NOW,
    }),
  );
  const authenticators = replicas.map((store) => {
    const throttle = new FailureThrottle(RULE);
    return new BasicAuthenticator(
      store.accounts,
      throttle,
      new VerifiedCredentials(),
      undefined,
      new SharedFailureThrottle(store, throttle.rule),
    );
  });
  const attempt = (index: number, password: string) =>
    (authenticators[index % 2] as BasicAuthenticator).authenticate("ana", password, "192.0.2.7").then(
      () => "signed in",
      (error: unknown) => (error instanceof ApiError ? String(error.status) : String(error)),
    );
  // A success gives its attempt back on both; then wrong passwords alternate between the replicas.
  assert.equal(await attempt(0, "the right password"), "signed in");
  const answers: string[] = [];
  for (let index = 0; index < 6; index++) answers.push(await attempt(index, `wrong ${index}`));
  assert.deepEqual(answers, ["401", "401", "401", "429", "429", "429"]);
  // Each replica alone took fewer than its burst: without the shared buckets both would allow more.
  assert.equal((await storedRows(subject, "auth_failures")).length, 1);
});
