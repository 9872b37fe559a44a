import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import {
  newAccountKey,
  newKeyId,
  newPublicApiKey,
} from "../../../../../electron/service/domain/identifiers.ts";
import { batchLinkLookups } from "../../../../../electron/service/store/postgres/batchLinkLookups.ts";
import type { Store } from "../../../../../electron/service/store/store.ts";
import { openStore, poolOn } from "../storeSubjects.ts";

/**
 * In one write transaction on PostgreSQL, the sync link of an account is read once for a batch of
 * creates (each create asks for it), and read anew after any other sync call.
 */

const NOW = 1_750_000_000_000;
const fields = {
  name: "k",
  allowedIPs: null,
  permissions: ["ALL" as const],
  validFrom: null,
  validTo: null,
  enabled: true,
};
const link = (accountId: number) => ({
  accountId,
  remoteBaseUrl: "https://remote.example",
  remoteUsername: "remote-ana",
  remotePassword: "pw",
  remoteAccountKey: "_",
  intervalSeconds: 300,
  now: NOW,
});

async function withAccount(store: Store) {
  return store.write((tx) =>
    tx.accounts.insert({
      accountKey: newAccountKey(),
      username: `ana-${randomUUID()}`,
      passwordHash: "hash",
      parentId: null,
      createdAt: NOW,
    }),
  );
}

test("an account's link is read once per transaction until another sync call: a link committed meanwhile is seen after it", async (t) => {
  const subject = await openStore("postgres", t);
  if (!subject) return;
  const { store, url } = subject;
  const account = await withAccount(store);
  const other = poolOn(url as string, 1);
  const seen = await store.write(async (tx) => {
    const sync = batchLinkLookups(tx.sync);
    const before = await sync.linkOfAccount(account.id);
    // Another replica links the account and commits, while this transaction is open.
    await other.query(
      `INSERT INTO sync_links (account_id, remote_base_url, remote_username, remote_password_sealed,
         remote_account_key, interval_seconds, next_attempt_at, created_at)
       VALUES ($1, 'https://remote.example', 'remote-ana', '\\x00', '_', 300, $2, $2)`,
      [account.id, NOW],
    );
    const remembered = await sync.linkOfAccount(account.id);
    await sync.links();
    const readAgain = await sync.linkOfAccount(account.id);
    return { before, remembered, readAgain };
  });
  assert.equal(seen.before, undefined);
  assert.equal(seen.remembered, undefined);
  assert.equal(seen.readAgain?.accountId, account.id);
});

test("a link written in the same transaction is seen by the creates after it, and queues them", async (t) => {
  const subject = await openStore("postgres", t);
  if (!subject) return;
  const { store } = subject;
  const account = await withAccount(store);
  const queued = await store.write(async (tx) => {
    const sync = batchLinkLookups(tx.sync);
    const create = async (name: string) => {
      const key = await tx.apiKeys.insert(
        account.id,
        account.accountKey,
        { key: newKeyId(), publicApiKey: newPublicApiKey() },
        { ...fields, name },
        NOW,
      );
      const found = await sync.linkOfAccount(account.id);
      return found ? sync.queueCreate(found.id, key.id, randomUUID(), NOW) : false;
    };
    const results = [await create("before the link"), await create("also before")];
    await sync.insertLink(link(account.id));
    results.push(await create("after the link"), await create("also after"));
    return results;
  });
  assert.deepEqual(queued, [false, false, true, true]);
  const entries = await store.sync.entries((await store.sync.linkOfAccount(account.id))?.id ?? -1);
  assert.equal(entries.length, 2);
});

test("concurrent creates in a linked account, batched into shared transactions, are every one queued", async (t) => {
  const subject = await openStore("postgres", t);
  if (!subject) return;
  const { store } = subject;
  const account = await withAccount(store);
  const { id: linkId } = await store.write((tx) => tx.sync.insertLink(link(account.id)));
  const created = await Promise.all(
    Array.from({ length: 40 }, (_, index) =>
      store.write(async (tx) => {
        const key = await tx.apiKeys.insert(
          account.id,
          account.accountKey,
          { key: newKeyId(), publicApiKey: newPublicApiKey() },
          { ...fields, name: `key ${index}` },
          NOW,
        );
        const found = await tx.sync.linkOfAccount(account.id);
        assert.equal(found?.id, linkId);
        return tx.sync.queueCreate(linkId, key.id, randomUUID(), NOW);
      }),
    ),
  );
  assert.ok(created.every(Boolean));
  assert.equal((await store.sync.entries(linkId)).length, 40);
});
