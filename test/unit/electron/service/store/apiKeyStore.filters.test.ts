import assert from "node:assert/strict";
import { test } from "node:test";
import type { DataDir } from "../../../../../electron/service/dataDir.ts";
import type { ApiKeyFields } from "../../../../../electron/service/domain/apiKeyRecords.ts";
import { newKeyId, newPublicApiKey } from "../../../../../electron/service/domain/identifiers.ts";
import type { ApiKeyFilter } from "../../../../../electron/service/store/store.ts";
import { addStoredAccount, tempDataDir } from "../../../../harness/tempDataDir.ts";

/** The SQLite key store's plain scans (creation order) with their filters, and updates read back. */

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
function listed(data: DataDir, accountId: number, filter: ApiKeyFilter = {}) {
  return data.apiKeys.scan(accountId, filter, 0, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER).keys;
}

test("keys come back in creation order, narrowed by enabled, name and publicApiKey", async (t) => {
  const data = await tempDataDir(t);
  const owner = addStoredAccount(data, "owner");
  const other = addStoredAccount(data, "other");
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
});

test("an update is stored and read back", async (t) => {
  const data = await tempDataDir(t);
  const owner = addStoredAccount(data, "owner");
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
});
