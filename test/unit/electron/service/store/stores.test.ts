import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";
import { openDataDir } from "../../../../../electron/service/dataDir.ts";
import type { ApiKeyFields } from "../../../../../electron/service/domain/apiKeyRecords.ts";
import {
  newAccountKey,
  newKeyId,
  newPublicApiKey,
} from "../../../../../electron/service/domain/identifiers.ts";
import {
  DatabaseVersionError,
  openDatabase,
  SCHEMA_VERSION,
} from "../../../../../electron/service/store/database.ts";
import type { ApiKeyFilter } from "../../../../../electron/service/store/store.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";

const dirs: string[] = [];
after(() => Promise.all(dirs.map(removeDir)));

async function freshDataDir() {
  const dir = await makeTempDir();
  dirs.push(dir);
  return openDataDir({ dataDir: dir, dataKey: randomBytes(32) });
}

const fields = (overrides: Partial<ApiKeyFields> = {}): ApiKeyFields => ({
  name: "k",
  allowedIPs: null,
  permissions: ["ALL"],
  validFrom: null,
  validTo: null,
  enabled: true,
  ...overrides,
});

/** Every key of an account a filter lets through, in one step of a scan. */
function listed(
  data: Awaited<ReturnType<typeof freshDataDir>>,
  accountId: number,
  filter: ApiKeyFilter = {},
) {
  return data.apiKeys.scan(accountId, filter, 0, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER).keys;
}

function addAccount(
  data: Awaited<ReturnType<typeof freshDataDir>>,
  username: string,
  parentId: number | null = null,
) {
  return data.accounts.insert({
    accountKey: newAccountKey(),
    username,
    passwordHash: "h",
    parentId,
    createdAt: 0,
  });
}

test("keys come back in creation order, narrowed by enabled, name and publicApiKey", async () => {
  const data = await freshDataDir();
  const owner = addAccount(data, "owner");
  const other = addAccount(data, "other");
  const insert = (account: typeof owner, f: ApiKeyFields) =>
    data.apiKeys.insert(
      account.id,
      account.accountKey,
      { key: newKeyId(), publicApiKey: newPublicApiKey() },
      f,
      0,
    );
  const a = insert(owner, fields({ name: "web" }));
  const b = insert(owner, fields({ name: "batch", enabled: false }));
  const c = insert(owner, fields({ name: "web", allowedIPs: ["10.0.0.0/8"], validFrom: 5, validTo: 9 }));
  const foreign = insert(other, fields({ name: "web" }));

  assert.deepEqual(
    listed(data, owner.id).map((k) => k.key),
    [a.key, b.key, c.key],
  );
  assert.deepEqual(
    listed(data, owner.id, { enabled: true }).map((k) => k.key),
    [a.key, c.key],
  );
  assert.deepEqual(
    listed(data, owner.id, { name: "web" }).map((k) => k.key),
    [a.key, c.key],
  );
  assert.deepEqual(
    listed(data, owner.id, { publicApiKey: c.publicApiKey }).map((k) => k.key),
    [c.key],
  );
  assert.deepEqual(listed(data, owner.id, { publicApiKey: foreign.publicApiKey }), []);
  assert.deepEqual(data.apiKeys.get(owner.id, c.key), c);
  assert.equal(data.apiKeys.get(other.id, c.key), undefined);
  assert.deepEqual(data.apiKeys.findByPublicApiKey(foreign.publicApiKey), foreign);
  data.close();
});

test("an update is stored and read back", async () => {
  const data = await freshDataDir();
  const owner = addAccount(data, "owner");
  const created = data.apiKeys.insert(
    owner.id,
    owner.accountKey,
    { key: newKeyId(), publicApiKey: newPublicApiKey() },
    fields(),
    0,
  );
  const updated = data.apiKeys.update(
    created,
    fields({ name: "new", permissions: ["TFA"], enabled: false }),
    1,
  );
  assert.deepEqual(data.apiKeys.get(owner.id, created.key), updated);
  assert.equal(updated.publicApiKey, created.publicApiKey);
  data.close();
});

test("an account manages itself and its sub-accounts at any depth, never its parent or a stranger", async () => {
  const data = await freshDataDir();
  const root = addAccount(data, "root");
  const child = addAccount(data, "child", root.id);
  const grandchild = addAccount(data, "grandchild", child.id);
  const stranger = addAccount(data, "stranger");
  assert.ok(data.accounts.manages(root.id, root.id));
  assert.ok(data.accounts.manages(root.id, child.id));
  assert.ok(data.accounts.manages(root.id, grandchild.id));
  assert.ok(data.accounts.manages(child.id, grandchild.id));
  assert.ok(!data.accounts.manages(child.id, root.id));
  assert.ok(!data.accounts.manages(stranger.id, child.id));
  assert.ok(!data.accounts.manages(root.id, stranger.id));
  data.close();
});

test("opening a database twice migrates once; a database from a newer version is refused", async () => {
  const dir = await makeTempDir();
  dirs.push(dir);
  const file = join(dir, "x.db");
  openDatabase(file).close();
  const db = openDatabase(file);
  assert.equal(db.pragma("user_version", { simple: true }), SCHEMA_VERSION);
  db.close();
  const raw = new Database(file);
  raw.pragma("user_version = 99");
  raw.close();
  assert.throws(() => openDatabase(file), DatabaseVersionError);
});
