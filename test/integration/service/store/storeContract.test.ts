import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Account } from "../../../../electron/service/domain/accounts.ts";
import type { ApiKeyFields } from "../../../../electron/service/domain/apiKeyRecords.ts";
import type { NewAuditEntry } from "../../../../electron/service/domain/auditEntries.ts";
import { newAccountKey, newKeyId, newPublicApiKey } from "../../../../electron/service/domain/identifiers.ts";
import { emptyPending, hourOf } from "../../../../electron/service/domain/keyUsage.ts";
import { dayOf } from "../../../../electron/service/domain/keyUsageSeries.ts";
import { IDEMPOTENCY_RETENTION_MS } from "../../../../electron/service/store/idempotencyRows.ts";
import { DuplicateError, type Store } from "../../../../electron/service/store/store.ts";
import { formatApiDateTime } from "../../../../shared/datetime.ts";
import { openStore, poolOn, STORE_KINDS, type StoreSubject } from "./storeSubjects.ts";

/**
 * The store's contract, asserted identically on SQLite and on PostgreSQL: whatever the database,
 * the service reads and writes the same domain values with the same rules.
 */

const newAccount = (username: string, parentId: number | null = null): Omit<Account, "id"> => ({
  accountKey: newAccountKey(),
  username,
  passwordHash: `hash of ${username}`,
  parentId,
  createdAt: 1_700_000_000_000,
});

const fields: ApiKeyFields = {
  name: "billing",
  allowedIPs: ["10.0.0.0/8"],
  permissions: ["ALL"],
  validFrom: null,
  validTo: 1_900_000_000_000,
  enabled: true,
};

const NOW = 1_750_000_000_000;

function entry(accountId: number, at: number, action: NewAuditEntry["action"] = "create"): NewAuditEntry {
  return {
    at,
    accountId,
    actor: "owner",
    channel: "api",
    action,
    reason: null,
    key: `key-${at}`,
    changes: { name: { old: null, new: `name ${at}` } },
    address: "127.0.0.1",
  };
}

/** How many hour and day rows of usage the subject's database holds, whatever their key. */
async function usageRows(subject: StoreSubject): Promise<{ hours: number; days: number }> {
  const count = async (table: string) => {
    if (subject.data) {
      return (subject.data.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    }
    const { rows } = await poolOn(subject.url as string, 1).query(`SELECT count(*)::int AS n FROM ${table}`);
    return rows[0].n as number;
  };
  return { hours: await count("key_usage_hours"), days: await count("key_usage_days") };
}

async function accountWithKey(store: Store, username = "ana") {
  const publicApiKey = newPublicApiKey();
  return store.write(async (tx) => {
    const account = await tx.accounts.insert(newAccount(username));
    const key = await tx.apiKeys.insert(
      account.id,
      account.accountKey,
      { key: newKeyId(), publicApiKey },
      fields,
      NOW,
    );
    return { account, key, publicApiKey };
  });
}

for (const kind of STORE_KINDS) {
  describe(`the ${kind} store`, () => {
    test("accounts are written and read back by username, accountKey, id and in id order", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const [ana, bo] = await store.write(async (tx) => [
        await tx.accounts.insert(newAccount("ana")),
        await tx.accounts.insert(newAccount("bo")),
      ]);
      assert.ok(ana && bo);
      assert.equal(typeof ana.id, "number");
      assert.deepEqual(await store.accounts.byUsername("ana"), ana);
      assert.deepEqual(await store.accounts.byAccountKey(bo.accountKey), bo);
      assert.deepEqual(await store.accounts.byId(bo.id), bo);
      assert.deepEqual(await store.accounts.list(), [ana, bo]);
      assert.equal(await store.accounts.byUsername("nobody"), undefined);
      await store.write((tx) => tx.accounts.setPasswordHash(ana.id, "new hash"));
      assert.equal((await store.accounts.byId(ana.id))?.passwordHash, "new hash");
    });

    test("a taken username is a DuplicateError, and the write that catches it goes on", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      await store.write((tx) => tx.accounts.insert(newAccount("cy")));
      await assert.rejects(
        store.write((tx) => tx.accounts.insert(newAccount("cy"))),
        (error) => error instanceof DuplicateError,
      );
      await store.write(async (tx) => {
        await assert.rejects(tx.accounts.insert(newAccount("cy")), DuplicateError);
        await tx.accounts.insert(newAccount("cy2"));
      });
      assert.deepEqual(
        (await store.accounts.list()).map((account) => account.username),
        ["cy", "cy2"],
      );
    });

    test("an account manages itself and its sub-accounts at any depth, never its parents or siblings", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const [root, child, grandchild, greatGrandchild, sibling] = await store.write(async (tx) => {
        const root = await tx.accounts.insert(newAccount("root"));
        const child = await tx.accounts.insert(newAccount("child", root.id));
        const grandchild = await tx.accounts.insert(newAccount("grandchild", child.id));
        const great = await tx.accounts.insert(newAccount("great", grandchild.id));
        const sibling = await tx.accounts.insert(newAccount("sibling", root.id));
        return [root, child, grandchild, great, sibling].map((account) => account.id);
      });
      const manages = (a: number | undefined, b: number | undefined) =>
        store.accounts.manages(a as number, b as number);
      assert.equal(await manages(root, greatGrandchild), true);
      assert.equal(await manages(child, greatGrandchild), true);
      assert.equal(await manages(grandchild, grandchild), true);
      assert.equal(await manages(greatGrandchild, root), false);
      assert.equal(await manages(sibling, grandchild), false);
      assert.equal(await manages(child, sibling), false);
      assert.equal(await manages(root, 999_999), false);
    });

    test("a key is found by account and id, by row id, by its publicApiKey and by its digest", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const { account, key, publicApiKey } = await accountWithKey(store);
      assert.deepEqual(key, {
        ...fields,
        id: key.id,
        key: key.key,
        publicApiKey,
        accountId: account.id,
        accountKey: account.accountKey,
        createdAt: NOW,
      });
      assert.deepEqual(await store.apiKeys.get(account.id, key.key), key);
      assert.deepEqual(await store.apiKeys.byId(key.id), key);
      assert.deepEqual(await store.apiKeys.findByPublicApiKey(publicApiKey), key);
      assert.equal(await store.apiKeys.keyIdOf(key.id), key.key);
      assert.equal(await store.apiKeys.keyIdTaken(key.key), true);
      assert.equal(await store.apiKeys.keyIdTaken(newKeyId()), false);
      assert.equal(await store.apiKeys.get(account.id + 1, key.key), undefined);
      assert.equal(await store.apiKeys.findByPublicApiKey(newPublicApiKey()), undefined);
      assert.deepEqual(await store.apiKeys.grantByDigest(store.apiKeys.digestOf(publicApiKey)), {
        key: key.key,
        accountId: account.id,
        permissions: ["ALL"],
        allowedIPs: ["10.0.0.0/8"],
        validFrom: null,
        validTo: 1_900_000_000_000,
        enabled: true,
      });
    });

    test("a copied key keeps an unknown creation time (null)", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const copied = await store.write(async (tx) => {
        const account = await tx.accounts.insert(newAccount("ana"));
        return tx.apiKeys.insert(
          account.id,
          account.accountKey,
          { key: newKeyId(), publicApiKey: newPublicApiKey() },
          fields,
          NOW,
          null,
        );
      });
      assert.equal((await store.apiKeys.byId(copied.id))?.createdAt, null);
    });

    test("an update changes the key's fields and its grant; a replaced publicApiKey stops working at once", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const { key, publicApiKey } = await accountWithKey(store);
      const changed = {
        ...fields,
        name: "renamed",
        allowedIPs: null,
        permissions: ["TFA"] as const,
        enabled: false,
      };
      const updated = await store.write((tx) =>
        tx.apiKeys.update(key, { ...changed, permissions: ["TFA"] }, NOW + 1),
      );
      assert.deepEqual(await store.apiKeys.byId(key.id), updated);
      assert.equal(updated.name, "renamed");
      const grant = await store.apiKeys.grantByDigest(store.apiKeys.digestOf(publicApiKey));
      assert.deepEqual([grant?.enabled, grant?.allowedIPs, grant?.permissions], [false, null, ["TFA"]]);

      const replacement = newPublicApiKey();
      const replaced = await store.write((tx) =>
        tx.apiKeys.replacePublicApiKey(updated, replacement, NOW + 2),
      );
      assert.equal(replaced.publicApiKey, replacement);
      assert.equal(await store.apiKeys.findByPublicApiKey(publicApiKey), undefined);
      assert.equal(await store.apiKeys.grantByDigest(store.apiKeys.digestOf(publicApiKey)), undefined);
      assert.deepEqual(await store.apiKeys.findByPublicApiKey(replacement), replaced);
    });

    test("key listeners are told the digest of every key written, old and new value of a replaced one", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const told = new Set<string>();
      const stop = store.apiKeys.onChange((digest) => told.add(digest.toString("hex")));
      const { key, publicApiKey } = await accountWithKey(store);
      const digest = (value: string) => store.apiKeys.digestOf(value).toString("hex");
      assert.deepEqual([...told], [digest(publicApiKey)]);
      told.clear();
      await store.write((tx) => tx.apiKeys.update(key, { ...fields, enabled: false }, NOW));
      assert.deepEqual([...told], [digest(publicApiKey)]);
      told.clear();
      const replacement = newPublicApiKey();
      await store.write((tx) => tx.apiKeys.replacePublicApiKey(key, replacement, NOW));
      assert.deepEqual([...told].sort(), [digest(publicApiKey), digest(replacement)].sort());
      stop();
      told.clear();
      await store.write((tx) => tx.apiKeys.update(key, fields, NOW));
      assert.equal(told.size, 0);
    });

    test("audit entries page newest first, over the manager's sub-accounts only, with filters and a cursor", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const [manager, sub, stranger] = await store.write(async (tx) => {
        const manager = await tx.accounts.insert(newAccount("manager"));
        const sub = await tx.accounts.insert(newAccount("sub", manager.id));
        const stranger = await tx.accounts.insert(newAccount("stranger"));
        for (const [account, at] of [
          [manager, 1],
          [sub, 2],
          [stranger, 3],
          [manager, 4],
          [sub, 5],
        ] as const)
          await tx.audit.append(entry(account.id, at * 1000));
        return [manager, sub, stranger];
      });
      assert.ok(manager && sub && stranger);
      const first = await store.audit.page({ managerId: manager.id, limit: 3 });
      assert.deepEqual(
        first.entries.map((e) => [e.accountKey, e.key]),
        [
          [sub.accountKey, "key-5000"],
          [manager.accountKey, "key-4000"],
          [sub.accountKey, "key-2000"],
        ],
      );
      assert.deepEqual(first.entries[0], {
        time: formatApiDateTime(5000),
        accountKey: sub.accountKey,
        actor: "owner",
        channel: "api",
        action: "create",
        reason: null,
        key: "key-5000",
        changes: { name: { old: null, new: "name 5000" } },
        address: "127.0.0.1",
      });
      assert.ok(first.lastId !== null);
      const rest = await store.audit.page({ managerId: manager.id, limit: 3, before: first.lastId });
      assert.deepEqual(
        rest.entries.map((e) => e.key),
        ["key-1000"],
      );
      assert.equal(rest.lastId, null);
      const filtered = await store.audit.page({
        managerId: manager.id,
        accountId: sub.id,
        from: 2000,
        to: 5000,
        actor: "owner",
        limit: 10,
      });
      assert.deepEqual(
        filtered.entries.map((e) => e.key),
        ["key-2000"],
      );
      assert.deepEqual(
        (await store.audit.page({ managerId: manager.id, key: "key-4000", limit: 10 })).entries.length,
        1,
      );
      assert.deepEqual(
        (await store.audit.page({ managerId: stranger.id, limit: 10 })).entries.map((e) => e.key),
        ["key-3000"],
      );
    });

    test("a write takes a free named lock, and the next write takes it again once the first ended", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      assert.equal(await store.write((tx) => tx.tryLock("purge")), true);
      assert.equal(await store.write((tx) => tx.tryLock("purge")), true);
      assert.equal(
        await store.write(async (tx) => (await tx.tryLock("purge")) && tx.tryLock("purge")),
        true,
        "the write holding it may ask again",
      );
    });

    test("audit retention deletes at most a batch of the oldest entries before a time", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const account = await store.write(async (tx) => {
        const account = await tx.accounts.insert(newAccount("ana"));
        for (const at of [1, 2, 3, 4, 5]) await tx.audit.append(entry(account.id, at * 1000));
        return account;
      });
      assert.equal(await store.write((tx) => tx.audit.prune(4000, 2)), 2);
      assert.equal(await store.write((tx) => tx.audit.prune(4000, 2)), 1);
      assert.equal(await store.write((tx) => tx.audit.prune(4000, 2)), 0);
      const left = await store.audit.page({ managerId: account.id, limit: 10 });
      assert.deepEqual(
        left.entries.map((e) => e.key),
        ["key-5000", "key-4000"],
      );
    });

    test("an idempotent request is new, then replayed with its answer; another body conflicts; 24 hours later it is new", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const { account } = await accountWithKey(store);
      const request = { method: "post", path: "/keys", body: { name: "a", tags: { b: 1, a: 2 } } };
      const digest = store.idempotency.digestOf(account.id, request);
      assert.deepEqual(
        digest,
        store.idempotency.digestOf(account.id, {
          ...request,
          method: "POST",
          body: { tags: { a: 2, b: 1 }, name: "a" },
        }),
      );
      const answer = { status: 201, body: JSON.stringify({ publicApiKey: newPublicApiKey() }) };
      const lookup = (key: string, d: Buffer, now: number) =>
        store.write((tx) => tx.idempotency.lookup(account.id, key, d, now));
      assert.deepEqual(await lookup("k1", digest, NOW), { kind: "new" });
      await store.write((tx) => tx.idempotency.remember(account.id, "k1", digest, answer, NOW));
      assert.deepEqual(await lookup("k1", digest, NOW + 1), { kind: "replay", answer });
      const other = store.idempotency.digestOf(account.id, { ...request, body: { name: "b" } });
      assert.deepEqual(await lookup("k1", other, NOW + 1), { kind: "conflict" });
      assert.deepEqual(await lookup("k1", digest, NOW + IDEMPOTENCY_RETENTION_MS), { kind: "new" });
      // Expired: remembered again over the old record.
      await store.write((tx) =>
        tx.idempotency.remember(account.id, "k1", other, answer, NOW + IDEMPOTENCY_RETENTION_MS),
      );
      assert.deepEqual(await lookup("k1", other, NOW + IDEMPOTENCY_RETENTION_MS + 1), {
        kind: "replay",
        answer,
      });
      // Only successful answers are kept.
      await store.write((tx) =>
        tx.idempotency.remember(account.id, "k2", digest, { status: 400, body: "{}" }, NOW),
      );
      assert.deepEqual(await lookup("k2", digest, NOW), { kind: "new" });
    });

    test("expired idempotency records are purged, live ones kept", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const { account } = await accountWithKey(store);
      const digest = store.idempotency.digestOf(account.id, { method: "POST", path: "/", body: {} });
      const answer = { status: 200, body: "{}" };
      await store.write(async (tx) => {
        await tx.idempotency.remember(account.id, "old", digest, answer, NOW);
        await tx.idempotency.remember(account.id, "new", digest, answer, NOW + 1000);
      });
      const later = NOW + IDEMPOTENCY_RETENTION_MS + 500;
      assert.equal(await store.write((tx) => tx.idempotency.purgeExpired(later)), 1);
      assert.equal(await store.write((tx) => tx.idempotency.purgeExpired(later)), 0);
      assert.deepEqual(
        await store.write((tx) => tx.idempotency.lookup(account.id, "new", digest, NOW + 2000)),
        { kind: "replay", answer },
      );
    });

    test("usage batches add up, the later call's time and address win, and only the last 24 hours count in the day", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const { key } = await accountWithKey(store);
      const hour = hourOf(NOW);
      const batch = (
        allowed: number,
        expired: number,
        usedAt: number | null,
        from: string | null,
        at = hour,
      ) => {
        const pending = emptyPending(at);
        pending.allowed = allowed;
        pending.refused.expired = expired;
        pending.lastUsedAt = usedAt;
        pending.lastUsedFrom = from;
        if (expired > 0) {
          pending.lastRefusedAt = (usedAt ?? NOW) + 1;
          pending.lastRefusedFrom = "10.9.9.9";
        }
        return new Map([[key.key, pending]]);
      };
      await store.write((tx) =>
        tx.usage.write(batch(3, 0, NOW - 30 * 3_600_000, "10.0.0.1", hour - 30), NOW),
      );
      await store.write((tx) => tx.usage.write(batch(2, 1, NOW, "10.0.0.2"), NOW));
      await store.write((tx) => tx.usage.write(batch(4, 0, NOW - 10, "10.0.0.3"), NOW));
      await store.write((tx) => tx.usage.write(batch(0, 2, null, null), NOW));
      const usage = await store.usage.read(key.id, NOW);
      assert.equal(usage.total.allowed, 9);
      assert.equal(usage.total.refused.expired, 3);
      assert.equal(usage.last24Hours.allowed, 6);
      assert.equal(usage.last24Hours.refused.expired, 3);
      assert.equal(usage.lastUsedAt, NOW);
      assert.equal(usage.lastUsedFrom, "10.0.0.2");
      assert.equal(usage.lastRefusedAt, NOW + 1);
      assert.equal(usage.lastRefusedFrom, "10.9.9.9");
      const never = await store.usage.read(key.id + 1000, NOW);
      assert.deepEqual([never.total.allowed, never.lastUsedAt, never.lastUsedFrom], [0, null, null]);
    });

    test("usage series: hours kept 48 hours and UTC days 30 days, older ones deleted by the next write", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const { key } = await accountWithKey(store);
      const other = await accountWithKey(store, "bo");
      const hour = hourOf(NOW);
      const day = dayOf(NOW);
      const write = (hours: number[], now: number, of = key.key) =>
        store.write((tx) =>
          tx.usage.write(
            new Map(
              hours.map((at, index) => {
                const pending = emptyPending(at);
                pending.allowed = index + 1;
                pending.refused["address-not-allowed"] = 1;
                return [of, pending];
              }),
            ),
            now,
          ),
        );
      // One batch holds one hour of a key: each write here is one hour.
      for (const at of [hour - 47, hour - 48, day * 24 - 29 * 24, day * 24 - 30 * 24, hour, hour])
        await write([at], NOW);
      await write([hour], NOW, other.key.key);
      const series = await store.usage.series(key.id, NOW);
      assert.deepEqual(
        [...series.hours].sort(([a], [b]) => a - b).map(([at, counts]) => [hour - at, counts.allowed]),
        [
          [47, 1],
          [0, 2],
        ],
      );
      assert.equal(series.hours.get(hour)?.refused["address-not-allowed"], 2);
      assert.deepEqual(
        [...series.days].sort(([a], [b]) => a - b).map(([at, counts]) => [day - at, counts.allowed]),
        // The hour 48 back is in the day before yesterday (NOW is 15:06 UTC) with the one 47 back.
        [
          [29, 1],
          [2, 2],
          [0, 2],
        ],
      );
      // Stored rows: what no series shows is gone, not only left out of the read.
      assert.deepEqual(await usageRows(subject), { hours: 3, days: 4 });
      // A day later the next batch deletes what fell out of the 48 hours and the 30 days.
      const later = NOW + 24 * 3_600_000;
      await write([hourOf(later)], later);
      assert.deepEqual(await usageRows(subject), { hours: 3, days: 4 });
      const afterADay = await store.usage.series(key.id, later);
      assert.deepEqual(
        [...afterADay.hours.keys()].sort((a, b) => a - b),
        [hour, hourOf(later)],
      );
      assert.equal(afterADay.days.get(day - 29), undefined);
      assert.equal((await store.usage.series(key.id + 1000, NOW)).hours.size, 0);
    });

    test("a write that throws leaves nothing behind and rejects with what it threw", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const publicApiKey = newPublicApiKey();
      await assert.rejects(
        store.write(async (tx) => {
          const account = await tx.accounts.insert(newAccount("bo"));
          await tx.apiKeys.insert(
            account.id,
            account.accountKey,
            { key: newKeyId(), publicApiKey },
            fields,
            NOW,
          );
          await tx.audit.append(entry(account.id, NOW));
          throw new Error("changed my mind");
        }),
        /^Error: changed my mind$/,
      );
      assert.deepEqual(await store.accounts.list(), []);
      assert.equal(await store.apiKeys.findByPublicApiKey(publicApiKey), undefined);
      // The store is still usable afterwards.
      await accountWithKey(store, "bo");
      assert.equal((await store.accounts.list()).length, 1);
    });

    test("a write's own reads see its rows before the commit", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      await store.write(async (tx) => {
        const account = await tx.accounts.insert(newAccount("ana"));
        assert.deepEqual(await tx.accounts.byUsername("ana"), account);
        const key = await tx.apiKeys.insert(
          account.id,
          account.accountKey,
          { key: newKeyId(), publicApiKey: newPublicApiKey() },
          fields,
          NOW,
        );
        assert.deepEqual(await tx.apiKeys.get(account.id, key.key), key);
      });
    });

    test("concurrent writes all commit, each whole, with ids of their own", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      const account = await store.write((tx) => tx.accounts.insert(newAccount("ana")));
      const created = await Promise.all(
        Array.from({ length: 25 }, (_, index) =>
          store.write(async (tx) => {
            const key = await tx.apiKeys.insert(
              account.id,
              account.accountKey,
              { key: newKeyId(), publicApiKey: newPublicApiKey() },
              { ...fields, name: `key ${index}` },
              NOW,
            );
            await tx.audit.append({ ...entry(account.id, NOW + index), key: key.key });
            return key;
          }),
        ),
      );
      assert.equal(new Set(created.map((key) => key.id)).size, 25);
      for (const key of created) assert.deepEqual(await store.apiKeys.get(account.id, key.key), key);
      const audit = await store.audit.page({ managerId: account.id, limit: 100 });
      assert.deepEqual(audit.entries.map((e) => e.key).sort(), created.map((key) => key.key).sort());
    });

    test("meta values are absent until written, then replaced by the next write, only inside a write", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      const { store } = subject;
      assert.equal(await store.meta.read("backup_note"), undefined);
      await store.write((tx) => tx.meta.write("backup_note", "first"));
      assert.equal(await store.meta.read("backup_note"), "first");
      await store.write(async (tx) => {
        await tx.meta.write("backup_note", "second");
        assert.equal(await tx.meta.read("backup_note"), "second", "the write reads its own value");
      });
      assert.equal(await store.meta.read("backup_note"), "second");
      await assert.rejects(
        store.write(async (tx) => {
          await tx.meta.write("backup_note", "third");
          throw new Error("changed my mind");
        }),
        /changed my mind/,
      );
      assert.equal(
        await store.meta.read("backup_note"),
        "second",
        "a rolled-back write leaves the old value",
      );
    });

    test("a store whose database answers is ready", async (t) => {
      const subject = await openStore(kind, t);
      if (!subject) return;
      await subject.store.health.ready();
      await accountWithKey(subject.store);
      await subject.store.health.ready();
    });
  });
}
