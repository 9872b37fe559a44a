import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, test } from "node:test";
import { openDataDir } from "../../../../electron/service/dataDir.ts";
import { newAccountKey, newKeyId, newPublicApiKey } from "../../../../electron/service/domain/identifiers.ts";
import type { StoreWrite } from "../../../../electron/service/store/store.ts";
import { createOutboxJournal } from "../../../../electron/sync/outboxJournal.ts";
import { makeTempDir, removeDir } from "../../../harness/keyServiceProcess.ts";

const dirs: string[] = [];
after(() => Promise.all(dirs.map(removeDir)));

const fields = {
  name: "k",
  allowedIPs: null,
  permissions: ["ALL" as const],
  validFrom: null,
  validTo: null,
  enabled: true,
};
const origin = { actor: "ana", channel: "api" as const, address: null, reason: "bulk" as const };

/** Two accounts, the first linked; a journal that notes which links it told of a queued change. */
async function setUp() {
  const dir = await makeTempDir();
  dirs.push(dir);
  const data = openDataDir({ dataDir: dir, dataKey: randomBytes(32) });
  const account = (username: string) => ({
    accountKey: newAccountKey(),
    username,
    passwordHash: "hash",
    parentId: null,
    createdAt: 1,
  });
  const { linkedAccount, otherAccount, link } = await data.store.write(async (tx) => {
    const linkedAccount = await tx.accounts.insert(account("linked"));
    const otherAccount = await tx.accounts.insert(account("other"));
    const link = await tx.sync.insertLink({
      accountId: linkedAccount.id,
      remoteBaseUrl: "https://remote.example",
      remoteUsername: "remote",
      remotePassword: "pw",
      remoteAccountKey: "_",
      intervalSeconds: 300,
      now: 1,
    });
    return { linkedAccount, otherAccount, link };
  });
  const told: number[] = [];
  const journal = createOutboxJournal(
    () => 7,
    (linkId) => told.push(linkId),
  );
  const insertKey = (tx: StoreWrite, accountId: number, accountKey: string) =>
    tx.apiKeys.insert(accountId, accountKey, { key: newKeyId(), publicApiKey: newPublicApiKey() }, fields, 1);
  return { data, store: data.store, journal, told, link, linkedAccount, otherAccount, insertKey };
}

test("a key created in a linked account gets its create queued in the same write, with the change's reason", async () => {
  const { data, store, journal, told, link, linkedAccount, otherAccount, insertKey } = await setUp();
  const [linkedKey, otherKey] = await store.write(async (tx) => {
    const linkedKey = await insertKey(tx, linkedAccount.id, linkedAccount.accountKey);
    await journal.created(tx, linkedKey, origin);
    const otherKey = await insertKey(tx, otherAccount.id, otherAccount.accountKey);
    await journal.created(tx, otherKey, origin);
    return [linkedKey, otherKey];
  });
  const entries = await store.sync.entries(link.id);
  assert.deepEqual(
    entries.map((entry) => [entry.apiKeyId, entry.kind, entry.reason, entry.createdAt]),
    [[linkedKey.id, "create", "bulk", 7]],
  );
  assert.match(entries[0]?.idempotencyKey ?? "", /^[0-9a-f-]{36}$/);
  assert.equal(
    await store.sync.keyState(otherKey.id),
    undefined,
    "a key of an account without a link stays local",
  );
  assert.deepEqual(told, [link.id]);
  data.close();
});

test("when the key's write rolls back, so does what the journal queued through its tx", async () => {
  const { data, store, journal, link, linkedAccount, insertKey } = await setUp();
  await assert.rejects(
    store.write(async (tx) => {
      const key = await insertKey(tx, linkedAccount.id, linkedAccount.accountKey);
      await journal.created(tx, key, origin);
      throw new Error("the write fails after the journal");
    }),
    /the write fails after the journal/,
  );
  assert.deepEqual(await store.sync.entries(link.id), []);
  assert.deepEqual(await store.sync.keyStates(link.id), []);
  data.close();
});

test("an update of a linked key queues the fields that changed; an unchanged or unlinked key queues nothing", async () => {
  const { data, store, journal, told, link, linkedAccount, otherAccount, insertKey } = await setUp();
  const { linked, other } = await store.write(async (tx) => {
    const linked = await insertKey(tx, linkedAccount.id, linkedAccount.accountKey);
    await journal.created(tx, linked);
    const other = await insertKey(tx, otherAccount.id, otherAccount.accountKey);
    return { linked, other };
  });
  await store.write(async (tx) => {
    const renamed = await tx.apiKeys.update(linked, { ...fields, name: "renamed", enabled: false }, 2);
    await journal.updated(tx, linked, renamed, origin);
    await journal.updated(tx, renamed, renamed, origin);
    const otherRenamed = await tx.apiKeys.update(other, { ...fields, name: "other renamed" }, 2);
    await journal.updated(tx, other, otherRenamed, origin);
  });
  const updates = (await store.sync.entries(link.id)).filter((entry) => entry.kind === "update");
  assert.deepEqual(
    updates.map((entry) => [entry.apiKeyId, entry.fields, entry.reason]),
    [[linked.id, ["name", "enabled"], "bulk"]],
  );
  assert.deepEqual(told, [link.id, link.id]);
  data.close();
});
