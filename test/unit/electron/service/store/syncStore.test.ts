import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";
import { DATABASE_FILE, openDataDir } from "../../../../../electron/service/dataDir.ts";
import {
  newAccountKey,
  newKeyId,
  newPublicApiKey,
} from "../../../../../electron/service/domain/identifiers.ts";
import type { StoreWrite } from "../../../../../electron/service/store/store.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";

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

/** A data dir with one account, one key in it and a link of that account. */
async function linked() {
  const dir = await makeTempDir();
  dirs.push(dir);
  const data = openDataDir({ dataDir: dir, dataKey: randomBytes(32) });
  const other = new Database(join(dir, DATABASE_FILE), { readonly: true });
  const rows = (sql: string) => other.prepare(sql).all();
  const { link, key } = await data.store.write(async (tx) => {
    const account = await tx.accounts.insert({
      accountKey: newAccountKey(),
      username: "ana",
      passwordHash: "hash",
      parentId: null,
      createdAt: 1,
    });
    const key = await tx.apiKeys.insert(
      account.id,
      account.accountKey,
      { key: newKeyId(), publicApiKey: newPublicApiKey() },
      fields,
      1,
    );
    const link = await tx.sync.insertLink({
      accountId: account.id,
      remoteBaseUrl: "https://remote.example",
      remoteUsername: "remote-ana",
      remotePassword: "the remote password",
      remoteAccountKey: "_",
      intervalSeconds: 300,
      now: 1,
    });
    return { link, key };
  });
  const close = () => {
    other.close();
    data.close();
  };
  return { store: data.store, link, key, rows, close };
}

test("a link's remote password is sealed in the database and read back in clear through the store", async () => {
  const { store, link, rows, close } = await linked();
  const [row] = rows("SELECT * FROM sync_links") as Record<string, unknown>[];
  assert.ok(row);
  assert.ok(!JSON.stringify(row).includes("the remote password"));
  assert.ok(!(row.remote_password_sealed as Buffer).includes(Buffer.from("the remote password")));
  assert.equal(await store.sync.remotePassword(link), "the remote password");
  assert.deepEqual(await store.sync.linkOfAccount(link.accountId), link);
  assert.deepEqual(await store.sync.links(), [link]);
  close();
});

test("queueing a key's create links it once, with one create entry carrying its Idempotency-Key", async () => {
  const { store, link, key, close } = await linked();
  const queued = await store.write(async (tx) => [
    await tx.sync.queueCreate(link.id, key.id, "idem-1", 5, "rotate"),
    await tx.sync.queueCreate(link.id, key.id, "idem-2", 6),
  ]);
  assert.deepEqual(queued, [true, false]);
  const entries = await store.sync.entries(link.id);
  assert.equal(entries.length, 1);
  assert.equal(entries[0]?.kind, "create");
  assert.equal(entries[0]?.idempotencyKey, "idem-1");
  assert.equal(entries[0]?.reason, "rotate");
  assert.equal((await store.sync.keyState(key.id))?.remoteKey, null);
  assert.deepEqual(await store.sync.counts(link.id), {
    pending: 1,
    failed: 0,
    conflicts: 0,
    remoteMissing: 0,
    linkedKeys: 1,
  });
  close();
});

test("sync rows written in a write that throws are rolled back with the key change of that write", async () => {
  const { store, link, key, rows, close } = await linked();
  await assert.rejects(
    store.write(async (tx: StoreWrite) => {
      await tx.apiKeys.update(key, { ...fields, name: "renamed" }, 2);
      await tx.sync.queueCreate(link.id, key.id, "idem", 2);
      throw new Error("changed my mind");
    }),
    /changed my mind/,
  );
  assert.equal((await store.apiKeys.byId(key.id))?.name, "k");
  assert.equal(await store.sync.keyState(key.id), undefined);
  assert.deepEqual(rows("SELECT * FROM sync_outbox"), []);
  assert.deepEqual(rows("SELECT * FROM sync_keys"), []);
  close();
});

test("dropping fields takes them out of the key's update entries up to an entry; an entry left empty goes", async () => {
  const { store, link, key, close } = await linked();
  await store.write(async (tx) => {
    await tx.sync.insertKeyState({ apiKeyId: key.id, linkId: link.id, remoteKey: "R", base: fields });
    await tx.sync.enqueue({ linkId: link.id, apiKeyId: key.id, kind: "update", fields: ["name"], now: 1 });
    await tx.sync.enqueue({
      linkId: link.id,
      apiKeyId: key.id,
      kind: "update",
      fields: ["name", "enabled"],
      now: 2,
    });
  });
  const [first, second] = await store.sync.entriesOfKey(key.id);
  assert.ok(first && second);
  await store.write((tx) => tx.sync.dropFields(key.id, ["name"], first.id));
  assert.deepEqual(
    (await store.sync.entriesOfKey(key.id)).map((entry) => entry.fields),
    [["name", "enabled"]],
    "the first entry went; the second, after upToId, is untouched",
  );
  await store.write((tx) => tx.sync.dropFields(key.id, ["name"]));
  assert.deepEqual(
    (await store.sync.entriesOfKey(key.id)).map((entry) => entry.fields),
    [["enabled"]],
  );
  close();
});

test("a linked key's base keeps the synced fields only, never the publicApiKey", async () => {
  const { store, link, key, rows, close } = await linked();
  await store.write((tx) =>
    tx.sync.insertKeyState({ apiKeyId: key.id, linkId: link.id, remoteKey: "R", base: key }),
  );
  assert.ok(!JSON.stringify(rows("SELECT * FROM sync_keys")).includes(key.publicApiKey));
  assert.deepEqual((await store.sync.keyState(key.id))?.base, fields);
  close();
});

test("deleting a link removes its key states and outbox; its keys stay, as local-only keys", async () => {
  const { store, link, key, close } = await linked();
  await store.write((tx) => tx.sync.queueCreate(link.id, key.id, "idem", 1));
  assert.equal(await store.sync.countLocalOnly(link.accountId), 0);
  await store.write((tx) => tx.sync.deleteLink(link.id));
  assert.equal(await store.sync.link(link.id), undefined);
  assert.deepEqual(await store.sync.entriesOfKey(key.id), []);
  assert.equal(await store.sync.keyState(key.id), undefined);
  assert.ok(await store.apiKeys.byId(key.id));
  assert.deepEqual(
    (await store.sync.localOnlyKeys(link.accountId, 0, 10)).map((local) => local.key),
    [key.key],
  );
  assert.equal(await store.sync.countLocalOnly(link.accountId), 1);
  close();
});
