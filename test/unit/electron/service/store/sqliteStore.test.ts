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
import { DuplicateError } from "../../../../../electron/service/store/store.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";

const dirs: string[] = [];
after(() => Promise.all(dirs.map(removeDir)));

async function fresh() {
  const dir = await makeTempDir();
  dirs.push(dir);
  const data = openDataDir({ dataDir: dir, dataKey: randomBytes(32) });
  const other = new Database(join(dir, DATABASE_FILE), { readonly: true });
  const count = (table: string) => other.prepare(`SELECT count(*) FROM ${table}`).pluck().get();
  const close = () => {
    other.close();
    data.close();
  };
  return { data, store: data.store, count, close };
}

const newAccount = (username: string) => ({
  accountKey: newAccountKey(),
  username,
  passwordHash: "hash",
  parentId: null,
  createdAt: 1,
});

const fields = {
  name: "k",
  allowedIPs: null,
  permissions: ["ALL" as const],
  validFrom: null,
  validTo: null,
  enabled: true,
};

test("a write's rows are committed (seen by another connection) when its promise resolves, and read back as domain types", async () => {
  const { store, count, close } = await fresh();
  const publicApiKey = newPublicApiKey();
  const created = await store.write(async (tx) => {
    const account = await tx.accounts.insert(newAccount("ana"));
    return tx.apiKeys.insert(account.id, account.accountKey, { key: newKeyId(), publicApiKey }, fields, 5);
  });
  assert.equal(count("api_keys"), 1);
  const account = await store.accounts.byUsername("ana");
  assert.equal(account?.id, created.accountId);
  assert.deepEqual(await store.apiKeys.get(created.accountId, created.key), created);
  assert.deepEqual(await store.apiKeys.findByPublicApiKey(publicApiKey), created);
  const grant = await store.apiKeys.grantByDigest(store.apiKeys.digestOf(publicApiKey));
  assert.equal(grant?.key, created.key);
  close();
});

test("a write that throws leaves nothing behind and rejects with what it threw", async () => {
  const { store, count, close } = await fresh();
  await assert.rejects(
    store.write(async (tx) => {
      await tx.accounts.insert(newAccount("bo"));
      throw new Error("changed my mind");
    }),
    /changed my mind/,
  );
  assert.equal(count("accounts"), 0);
  assert.equal(await store.accounts.byUsername("bo"), undefined);
  close();
});

test("an account whose username is taken is refused with a DuplicateError", async () => {
  const { store, close } = await fresh();
  await store.write((tx) => tx.accounts.insert(newAccount("cy")));
  await assert.rejects(
    store.write((tx) => tx.accounts.insert(newAccount("cy"))),
    (error) => error instanceof DuplicateError,
  );
  assert.equal((await store.accounts.list()).length, 1);
  close();
});

test("a store read that fails rejects its promise instead of throwing at the caller", async () => {
  const { data, store } = await fresh();
  data.close();
  const read = store.accounts.byId(1);
  assert.ok(read instanceof Promise);
  await assert.rejects(read);
});
