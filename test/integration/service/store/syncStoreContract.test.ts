import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ApiKeyFields } from "../../../../electron/service/domain/apiKeyRecords.ts";
import { newAccountKey, newKeyId, newPublicApiKey } from "../../../../electron/service/domain/identifiers.ts";
import { DuplicateError, type Store } from "../../../../electron/service/store/store.ts";
import { SYNCED_FIELDS } from "../../../../shared/sync.ts";
import { openStore, postgresReplica, STORE_KINDS, type StoreSubject, storedRows } from "./storeSubjects.ts";

/**
 * The store's sync repository (links, linked keys, the outbox), asserted identically on SQLite
 * and on PostgreSQL: the same part of the contract as storeContract.test.ts, for electron/sync.
 */

const NOW = 1_750_000_000_000;
const REMOTE_PASSWORD = "the remote password";

const fields: ApiKeyFields = {
  name: "billing",
  allowedIPs: ["10.0.0.0/8"],
  permissions: ["ALL"],
  validFrom: null,
  validTo: 1_900_000_000_000,
  enabled: true,
};

/** An account with `count` keys ("key 0", "key 1", …) and a link of that account. */
async function linkedAccount(store: Store, count = 1, username = "ana") {
  return store.write(async (tx) => {
    const account = await tx.accounts.insert({
      accountKey: newAccountKey(),
      username,
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
          { ...fields, name: `key ${index}`, enabled: index % 2 === 0 },
          NOW,
        ),
      );
    const link = await tx.sync.insertLink({
      accountId: account.id,
      remoteBaseUrl: "https://remote.example",
      remoteUsername: `remote-${username}`,
      remotePassword: REMOTE_PASSWORD,
      remoteAccountKey: "_",
      intervalSeconds: 300,
      now: NOW,
    });
    return { account, keys, link };
  });
}

/** Whether `secret` appears anywhere in the table's stored rows, as text or inside bytes. */
async function storedInClear(subject: StoreSubject, table: string, secret: string): Promise<boolean> {
  return (await storedRows(subject, table)).some((row) =>
    Object.values(row).some((value) =>
      Buffer.isBuffer(value) ? value.includes(Buffer.from(secret)) : String(value).includes(secret),
    ),
  );
}

for (const kind of STORE_KINDS) {
  describe(`the ${kind} store's sync repository`, () => {
    test("a link is read back by id, by account and in id order; its remote password is sealed at rest", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const { account, link } = await linkedAccount(subject.store);
      const { link: second } = await linkedAccount(subject.store, 0, "bo");
      assert.deepEqual(link, {
        id: link.id,
        accountId: account.id,
        remoteBaseUrl: "https://remote.example",
        remoteUsername: "remote-ana",
        remoteAccountKey: "_",
        intervalSeconds: 300,
        pausedReason: null,
        lastAttemptAt: null,
        lastSuccessAt: null,
        lastError: null,
        nextAttemptAt: NOW,
        failures: 0,
        runLog: [],
      });
      assert.deepEqual(await store.sync.link(link.id), link);
      assert.deepEqual(await store.sync.linkOfAccount(account.id), link);
      assert.deepEqual(await store.sync.links(), [link, second]);
      assert.equal(await store.sync.link(second.id + 1000), undefined);
      assert.equal(await store.sync.linkOfAccount(account.id + 1000), undefined);
      assert.equal(await store.sync.remotePassword(link), REMOTE_PASSWORD);
      assert.equal(await storedInClear(subject, "sync_links", REMOTE_PASSWORD), false);
    });

    test("an account has one link: a second is a DuplicateError, and the write that catches it goes on", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const { account, link } = await linkedAccount(store);
      const again = {
        accountId: account.id,
        remoteBaseUrl: "https://other.example",
        remoteUsername: "other",
        remotePassword: "other password",
        remoteAccountKey: "_",
        intervalSeconds: 60,
        now: NOW + 1,
      };
      await assert.rejects(
        store.write((tx) => tx.sync.insertLink(again)),
        (error) => error instanceof DuplicateError,
      );
      await store.write(async (tx) => {
        await assert.rejects(tx.sync.insertLink(again), DuplicateError);
        await tx.sync.setInterval(link.id, 60);
      });
      assert.deepEqual(await store.sync.links(), [{ ...link, intervalSeconds: 60 }]);
      assert.equal(await store.sync.remotePassword(link), REMOTE_PASSWORD);
    });

    test("new remote credentials are sealed and resume a link paused for its credentials, not one the user paused", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const { link } = await linkedAccount(store);
      await store.write((tx) => tx.sync.setPaused(link.id, "credentials", "401 from the remote"));
      await store.write((tx) =>
        tx.sync.setRemote(link, { username: "remote-new", password: "new password" }),
      );
      const resumed = await store.sync.link(link.id);
      assert.deepEqual(
        [resumed?.pausedReason, resumed?.remoteUsername, resumed?.remoteBaseUrl, resumed?.lastError],
        [null, "remote-new", "https://remote.example", "401 from the remote"],
      );
      assert.equal(await store.sync.remotePassword(link), "new password");
      assert.equal(await storedInClear(subject, "sync_links", "new password"), false);

      await store.write((tx) => tx.sync.setPaused(link.id, "user"));
      await store.write((tx) =>
        tx.sync.setRemote(link, { baseUrl: "https://moved.example", username: "u", password: "p" }),
      );
      const stillPaused = await store.sync.link(link.id);
      assert.deepEqual(
        [stillPaused?.pausedReason, stillPaused?.remoteBaseUrl, stillPaused?.lastError],
        ["user", "https://moved.example", "401 from the remote"],
      );
    });

    test("a link's runs are recorded: attempts, failures with their backoff, successes, planned runs, its interval", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const { link } = await linkedAccount(store);
      const read = async () => {
        const now = await store.sync.link(link.id);
        return [now?.lastAttemptAt, now?.lastSuccessAt, now?.lastError, now?.nextAttemptAt, now?.failures];
      };
      await store.write(async (tx) => {
        await tx.sync.recordLinkAttempt(link.id, NOW + 1);
        await tx.sync.recordFailure(link.id, "remote unreachable", NOW + 60_000, 2);
      });
      assert.deepEqual(await read(), [NOW + 1, null, "remote unreachable", NOW + 60_000, 2]);
      await store.write((tx) => tx.sync.planRun(link.id, NOW + 5));
      assert.deepEqual(await read(), [NOW + 1, null, "remote unreachable", NOW + 5, 0]);
      await store.write((tx) => tx.sync.recordFailure(link.id, "again", null, 1));
      await store.write((tx) => tx.sync.recordSuccess(link.id, NOW + 10, NOW + 310, "key k1: refused"));
      assert.deepEqual(await read(), [NOW + 1, NOW + 10, "key k1: refused", NOW + 310, 0]);
      await store.write((tx) => tx.sync.recordSuccess(link.id, NOW + 20, NOW + 320, null));
      assert.deepEqual(await read(), [NOW + 1, NOW + 20, null, NOW + 320, 0]);
      await store.write((tx) => tx.sync.setInterval(link.id, 60));
      assert.equal((await store.sync.link(link.id))?.intervalSeconds, 60);
    });

    test("a link's run log keeps its newest runs first, bounded, in the link's row; other links have their own", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const { link } = await linkedAccount(store);
      const { link: other } = await linkedAccount(store, 0, "bo");
      const run = (index: number) => ({
        startedAt: NOW + index * 1000,
        endedAt: NOW + index * 1000 + 5,
        pulled: index,
        pushed: 2 * index,
        conflicts: index % 3,
        error: index % 2 === 0 ? null : `run ${index} failed`,
      });
      for (let index = 0; index < 5; index++)
        await store.write((tx) => tx.sync.recordRun(link.id, run(index), 3));
      assert.deepEqual((await store.sync.link(link.id))?.runLog, [run(4), run(3), run(2)]);
      assert.deepEqual((await store.sync.links()).find((each) => each.id === link.id)?.runLog, [
        run(4),
        run(3),
        run(2),
      ]);
      assert.deepEqual((await store.sync.link(other.id))?.runLog, []);
      // A run recorded in a write that fails is not in the log.
      await assert.rejects(
        store.write(async (tx) => {
          await tx.sync.recordRun(link.id, run(9), 3);
          throw new Error("the write fails");
        }),
      );
      assert.deepEqual((await store.sync.link(link.id))?.runLog, [run(4), run(3), run(2)]);
    });

    test("a link's lease is one owner's until it expires or is given up, and its holder renews it (SQLite: always held)", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const { link } = await linkedAccount(store);
      const lease = (owner: string, until: number, now: number) =>
        store.write((tx) => tx.sync.leaseLink(link.id, owner, until, now));
      const release = (owner: string) => store.write((tx) => tx.sync.releaseLink(link.id, owner));
      // One process runs every link of a SQLite file: another owner is never refused there.
      const othersRefused = kind === "postgres";
      assert.equal(await lease("a", NOW + 60_000, NOW), true, "a free lease is taken");
      assert.equal(await lease("b", NOW + 61_000, NOW + 1), !othersRefused, "held by a");
      assert.equal(await lease("a", NOW + 90_000, NOW + 30_000), true, "renewed by its holder");
      assert.equal(
        await lease("b", NOW + 120_000, NOW + 60_000),
        !othersRefused,
        "renewed past its first end",
      );
      assert.equal(await lease("b", NOW + 150_000, NOW + 90_000), true, "expired: b takes it");
      assert.equal(await lease("a", NOW + 150_000, NOW + 90_001), !othersRefused, "held by b now");
      await release("a");
      assert.equal(
        await lease("a", NOW + 150_000, NOW + 90_002),
        !othersRefused,
        "only its holder gives it up",
      );
      await release("b");
      assert.equal(await lease("a", NOW + 200_000, NOW + 90_003), true, "given up: free");
      assert.deepEqual(await store.sync.link(link.id), link, "the link itself is unchanged");
      if (!subject.url) return;
      // Two replicas asking for a free lease at once: one gets it.
      await release("a");
      const other = postgresReplica(subject.url, subject.box);
      const answers = await Promise.all(
        [store, other, store, other].map((replica, index) =>
          replica.write((tx) => tx.sync.leaseLink(link.id, `replica ${index}`, NOW + 60_000, NOW)),
        ),
      );
      assert.equal(answers.filter(Boolean).length, 1, String(answers));
    });

    test("queueing a key's create links it once, with one create entry of every synced field and its Idempotency-Key", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const {
        link,
        keys: [key],
      } = await linkedAccount(store);
      assert.ok(key);
      const queued = await store.write(async (tx) => [
        await tx.sync.queueCreate(link.id, key.id, "idem-1", NOW + 1, "rotate"),
        await tx.sync.queueCreate(link.id, key.id, "idem-2", NOW + 2),
      ]);
      assert.deepEqual(queued, [true, false]);
      assert.equal(await store.write((tx) => tx.sync.queueCreate(link.id, key.id, "idem-3", NOW + 3)), false);
      const entries = await store.sync.entries(link.id);
      assert.deepEqual(entries, [
        {
          id: entries[0]?.id,
          linkId: link.id,
          apiKeyId: key.id,
          kind: "create",
          fields: [...SYNCED_FIELDS],
          sentBody: null,
          reason: "rotate",
          idempotencyKey: "idem-1",
          attempts: 0,
          failed: false,
          lastError: null,
          createdAt: NOW + 1,
        },
      ]);
      assert.deepEqual(await store.sync.keyState(key.id), {
        apiKeyId: key.id,
        linkId: link.id,
        remoteKey: null,
        base: null,
        remoteMissing: false,
        conflict: null,
        conflictOrigin: null,
      });
      assert.deepEqual(await store.sync.counts(link.id), {
        pending: 1,
        failed: 0,
        conflicts: 0,
        remoteMissing: 0,
        linkedKeys: 1,
      });
    });

    test("a linked key's state keeps the synced fields only, its remote key, conflict and missing flag", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const {
        link,
        keys: [first, second, third],
      } = await linkedAccount(store, 3);
      assert.ok(first && second && third);
      await store.write(async (tx) => {
        // Given the stored key itself: its ids and publicApiKey must not be copied.
        await tx.sync.insertKeyState({ apiKeyId: third.id, linkId: link.id, remoteKey: "R3", base: third });
        await tx.sync.insertKeyState({ apiKeyId: first.id, linkId: link.id, remoteKey: null, base: null });
        await tx.sync.insertKeyState({ apiKeyId: second.id, linkId: link.id, remoteKey: "R2", base: second });
      });
      assert.equal(await storedInClear(subject, "sync_keys", third.publicApiKey), false);
      const { name, allowedIPs, permissions, validFrom, validTo, enabled } = third;
      assert.deepEqual((await store.sync.keyState(third.id))?.base, {
        name,
        allowedIPs,
        permissions,
        validFrom,
        validTo,
        enabled,
      });
      assert.deepEqual(
        (await store.sync.keyStates(link.id)).map((state) => state.apiKeyId),
        [first.id, second.id, third.id],
      );
      assert.equal(await store.sync.remoteKeyLinked(link.id, "R2"), true);
      assert.equal(await store.sync.remoteKeyLinked(link.id, "R9"), false);

      const base = { ...fields, name: "agreed" };
      await store.write(async (tx) => {
        await tx.sync.setRemoteMissing(first.id, true);
        await tx.sync.setRemoteKey(first.id, "R1", base);
        await tx.sync.setRemoteMissing(second.id, true);
        await tx.sync.setConflict(third.id, { name: "remote name", enabled: false });
        await tx.sync.setConflictOrigin(third.id, {
          name: { seenAt: NOW, at: NOW - 5, by: "remote admin" },
          enabled: { seenAt: NOW, at: null, by: null },
        });
      });
      assert.deepEqual(await store.sync.keyState(first.id), {
        apiKeyId: first.id,
        linkId: link.id,
        remoteKey: "R1",
        base,
        remoteMissing: false,
        conflict: null,
        conflictOrigin: null,
      });
      assert.equal((await store.sync.keyState(second.id))?.remoteMissing, true);
      assert.deepEqual((await store.sync.keyState(third.id))?.conflict, {
        name: "remote name",
        enabled: false,
      });
      assert.deepEqual((await store.sync.keyState(third.id))?.conflictOrigin, {
        name: { seenAt: NOW, at: NOW - 5, by: "remote admin" },
        enabled: { seenAt: NOW, at: null, by: null },
      });
      await store.write((tx) => tx.sync.setConflictOrigin(third.id, null));
      assert.equal((await store.sync.keyState(third.id))?.conflictOrigin, null);
      assert.deepEqual(await store.sync.counts(link.id), {
        pending: 0,
        failed: 0,
        conflicts: 1,
        remoteMissing: 1,
        linkedKeys: 3,
      });

      await store.write(async (tx) => {
        await tx.sync.setConflict(third.id, {});
        await tx.sync.setBase(third.id, { ...third, name: "new base" });
        await tx.sync.deleteKeyState(second.id);
      });
      assert.deepEqual(await store.sync.keyState(third.id), {
        apiKeyId: third.id,
        linkId: link.id,
        remoteKey: "R3",
        base: { name: "new base", allowedIPs, permissions, validFrom, validTo, enabled },
        remoteMissing: false,
        conflict: null,
        conflictOrigin: null,
      });
      assert.equal(await store.sync.keyState(second.id), undefined);
      assert.equal(await storedInClear(subject, "sync_keys", third.publicApiKey), false);
    });

    test("linked keys with news are found a bounded span of key ids at a time", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const { link, keys } = await linkedAccount(store, 5);
      const [quiet, conflicted, missing, unsent, queued] = keys;
      assert.ok(quiet && conflicted && missing && unsent && queued);
      await store.write(async (tx) => {
        for (const key of [quiet, conflicted, missing, queued])
          await tx.sync.insertKeyState({
            apiKeyId: key.id,
            linkId: link.id,
            remoteKey: `R${key.id}`,
            base: key,
          });
        await tx.sync.insertKeyState({ apiKeyId: unsent.id, linkId: link.id, remoteKey: null, base: null });
        await tx.sync.setConflict(conflicted.id, { name: "theirs" });
        await tx.sync.setRemoteMissing(missing.id, true);
        await tx.sync.enqueue({
          linkId: link.id,
          apiKeyId: queued.id,
          kind: "update",
          fields: ["name"],
          now: NOW,
        });
      });
      const ids = (states: { apiKeyId: number }[]) => states.map((state) => state.apiKeyId);
      const base = quiet.id - 1;
      const whole = await store.sync.keyStatesWithNewsIn(link.id, base, 100);
      assert.deepEqual(ids(whole.states), [conflicted.id, missing.id, unsent.id, queued.id]);
      assert.equal(whole.next, null);
      const firstSpan = await store.sync.keyStatesWithNewsIn(link.id, base, 2);
      assert.deepEqual(ids(firstSpan.states), [conflicted.id]);
      assert.equal(firstSpan.next, base + 2);
      const lastSpan = await store.sync.keyStatesWithNewsIn(link.id, base + 4, 2);
      assert.deepEqual(ids(lastSpan.states), [queued.id]);
      assert.equal(lastSpan.next, null);
    });

    test("the outbox answers entries in order, after an entry and per key; attempts, failures and retries are recorded", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const {
        link,
        keys: [first, second],
      } = await linkedAccount(store, 2);
      assert.ok(first && second);
      await store.write(async (tx) => {
        await tx.sync.queueCreate(link.id, first.id, "idem-first", NOW);
        await tx.sync.insertKeyState({ apiKeyId: second.id, linkId: link.id, remoteKey: "R2", base: second });
        await tx.sync.enqueue({
          linkId: link.id,
          apiKeyId: second.id,
          kind: "update",
          fields: ["name", "enabled"],
          now: NOW + 1,
          reason: "bulk",
        });
        await tx.sync.enqueue({
          linkId: link.id,
          apiKeyId: second.id,
          kind: "update",
          fields: ["validTo"],
          now: NOW + 2,
        });
      });
      const entries = await store.sync.entries(link.id);
      assert.deepEqual(
        entries.map((entry) => [
          entry.apiKeyId,
          entry.kind,
          entry.fields,
          entry.reason,
          entry.idempotencyKey,
        ]),
        [
          [first.id, "create", [...SYNCED_FIELDS], null, "idem-first"],
          [second.id, "update", ["name", "enabled"], "bulk", null],
          [second.id, "update", ["validTo"], null, null],
        ],
      );
      const [create, update, later] = entries;
      assert.ok(create && update && later);
      assert.deepEqual(await store.sync.entry(update.id), update);
      assert.equal(await store.sync.entry(later.id + 1000), undefined);
      assert.deepEqual(await store.sync.entriesAfter(link.id, create.id, 1), [update]);
      assert.deepEqual(await store.sync.entriesAfter(link.id, update.id, 10), [later]);
      assert.deepEqual(await store.sync.entriesAfter(link.id, later.id, 10), []);
      assert.deepEqual(await store.sync.entriesOfKey(second.id), [update, later]);

      // A create's attempt is recorded before it is sent, with the synced fields it sends only.
      assert.deepEqual(await store.sync.uncertainCreates(link.id), []);
      await store.write((tx) => tx.sync.recordCreateAttempt(create.id, first, SYNCED_FIELDS, "rotate"));
      const [uncertain] = await store.sync.uncertainCreates(link.id);
      const { name, allowedIPs, permissions, validFrom, validTo, enabled } = first;
      assert.deepEqual(uncertain, {
        ...create,
        attempts: 1,
        sentBody: { name, allowedIPs, permissions, validFrom, validTo, enabled },
        reason: "rotate",
      });
      assert.equal(await storedInClear(subject, "sync_outbox", first.publicApiKey), false);

      await store.write(async (tx) => {
        await tx.sync.recordEntryAttempts([update.id, later.id], "503 from the remote");
        await tx.sync.recordEntryAttempts([update.id], null);
        await tx.sync.markFailed([later.id], "400: validTo refused");
      });
      const failedOnes = await store.sync.entriesOfKey(second.id);
      assert.deepEqual(
        failedOnes.map((entry) => [entry.attempts, entry.failed, entry.lastError]),
        [
          [2, false, "503 from the remote"],
          [1, true, "400: validTo refused"],
        ],
      );
      assert.deepEqual(await store.sync.counts(link.id), {
        pending: 2,
        failed: 1,
        conflicts: 0,
        remoteMissing: 0,
        linkedKeys: 2,
      });
      await store.write((tx) => tx.sync.markFailed([create.id], "refused"));
      assert.deepEqual(await store.sync.uncertainCreates(link.id), [], "a failed create is not uncertain");
      await store.write(async (tx) => {
        await tx.sync.retry(later.id);
        await tx.sync.deleteEntries([create.id, update.id]);
      });
      assert.deepEqual(
        (await store.sync.entries(link.id)).map((entry) => [entry.id, entry.failed, entry.lastError]),
        [[later.id, false, null]],
      );
    });

    test("dropping fields takes them out of a key's update entries up to an entry; an entry left empty goes", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const {
        link,
        keys: [key],
      } = await linkedAccount(store);
      assert.ok(key);
      await store.write(async (tx) => {
        await tx.sync.insertKeyState({ apiKeyId: key.id, linkId: link.id, remoteKey: "R", base: key });
        await tx.sync.enqueue({
          linkId: link.id,
          apiKeyId: key.id,
          kind: "update",
          fields: ["name"],
          now: 1,
        });
        await tx.sync.enqueue({
          linkId: link.id,
          apiKeyId: key.id,
          kind: "update",
          fields: ["name", "enabled"],
          now: 2,
          reason: "bulk",
        });
        await tx.sync.enqueue({
          linkId: link.id,
          apiKeyId: key.id,
          kind: "update",
          fields: ["name", "validTo"],
          now: 3,
        });
      });
      const [first, second, third] = await store.sync.entriesOfKey(key.id);
      assert.ok(first && second && third);
      await store.write((tx) => tx.sync.dropFields(key.id, ["name"], second.id));
      assert.deepEqual(
        (await store.sync.entriesOfKey(key.id)).map((entry) => [entry.id, entry.fields]),
        [
          [second.id, ["enabled"]],
          [third.id, ["name", "validTo"]],
        ],
        "the first entry went, the second lost name, the third (after upToId) is untouched",
      );
      await store.write((tx) => tx.sync.dropFields(key.id, []));
      await store.write((tx) => tx.sync.dropFields(key.id, ["validTo", "name", "enabled"]));
      assert.deepEqual(await store.sync.entriesOfKey(key.id), []);
    });

    test("local-only keys are the account's keys no link knows, paged in creation order and counted", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const { account, keys, link } = await linkedAccount(store, 4);
      await linkedAccount(store, 2, "bo");
      const [first, second, third, fourth] = keys;
      assert.ok(first && second && third && fourth);
      await store.write(async (tx) => {
        await tx.sync.queueCreate(link.id, second.id, "idem", NOW);
        // A validity window, read back with the key: the Sync view tells an expired key by it.
        await tx.apiKeys.update(
          third,
          { ...third, validFrom: NOW - 7_200_000, validTo: NOW - 3_600_000 },
          NOW,
        );
      });
      const local = (key: typeof first) => ({
        id: key.id,
        key: key.key,
        name: key.name,
        enabled: key.enabled,
        validFrom: key.validFrom,
        validTo: key.validTo,
      });
      const expired = { ...third, validFrom: NOW - 7_200_000, validTo: NOW - 3_600_000 };
      assert.deepEqual(await store.sync.localOnlyKeys(account.id, 0, 2), [local(first), local(expired)]);
      assert.deepEqual(await store.sync.localOnlyKeys(account.id, third.id, 2), [local(fourth)]);
      assert.deepEqual([third.enabled, fourth.enabled], [true, false]);
      assert.equal(await store.sync.countLocalOnly(account.id), 3);
      assert.equal(await store.sync.countLocalOnly(account.id + 1000), 0);
    });

    test("deleting a link removes its key states and outbox; its keys stay, as local-only keys", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const { account, keys, link } = await linkedAccount(store, 2);
      const { link: other, keys: otherKeys } = await linkedAccount(store, 1, "bo");
      await store.write(async (tx) => {
        for (const key of [...keys, ...otherKeys])
          await tx.sync.queueCreate(
            key.accountId === account.id ? link.id : other.id,
            key.id,
            `idem-${key.id}`,
            NOW,
          );
      });
      assert.equal(await store.sync.countLocalOnly(account.id), 0);
      await store.write((tx) => tx.sync.deleteLink(link.id));
      assert.equal(await store.sync.link(link.id), undefined);
      assert.deepEqual(await store.sync.entries(link.id), []);
      assert.deepEqual(await store.sync.keyStates(link.id), []);
      assert.deepEqual(
        (await store.sync.localOnlyKeys(account.id, 0, 10)).map((local) => local.key),
        keys.map((key) => key.key),
      );
      assert.equal(await store.sync.countLocalOnly(account.id), 2);
      for (const key of keys) assert.deepEqual(await store.apiKeys.byId(key.id), key);
      // The other link is untouched.
      assert.deepEqual(await store.sync.links(), [other]);
      assert.equal((await store.sync.entries(other.id)).length, 1);
    });

    test("sync rows written in a write that throws are rolled back with the key change of that write", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const {
        account,
        link,
        keys: [key],
      } = await linkedAccount(store);
      assert.ok(key);
      await assert.rejects(
        store.write(async (tx) => {
          await tx.apiKeys.update(key, { ...key, name: "renamed" }, NOW + 1);
          await tx.sync.queueCreate(link.id, key.id, "idem", NOW + 1);
          await tx.sync.recordLinkAttempt(link.id, NOW + 1);
          assert.equal((await tx.sync.entries(link.id)).length, 1, "the write sees its own rows");
          throw new Error("changed my mind");
        }),
        /^Error: changed my mind$/,
      );
      assert.equal((await store.apiKeys.byId(key.id))?.name, "key 0");
      assert.equal(await store.sync.keyState(key.id), undefined);
      assert.equal((await store.sync.link(link.id))?.lastAttemptAt, null);
      assert.deepEqual(await storedRows(subject, "sync_outbox"), []);
      assert.deepEqual(await storedRows(subject, "sync_keys"), []);
      assert.equal(await store.sync.countLocalOnly(account.id), 1);
    });
  });
}
