import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, test } from "node:test";
import { type DataDir, openDataDir } from "../../../../../electron/service/dataDir.ts";
import { newAccountKey } from "../../../../../electron/service/domain/identifiers.ts";
import {
  canonicalJson,
  IDEMPOTENCY_PURGE_BATCH,
  IDEMPOTENCY_RETENTION_MS,
} from "../../../../../electron/service/store/idempotencyRows.ts";
import { IdempotencyStore } from "../../../../../electron/service/store/idempotencyStore.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";

const dirs: string[] = [];
const opened: DataDir[] = [];
after(async () => {
  for (const data of opened) data.close();
  await Promise.all(dirs.map(removeDir));
});

async function fresh() {
  const dir = await makeTempDir();
  dirs.push(dir);
  const data = openDataDir({ dataDir: dir, dataKey: randomBytes(32) });
  opened.push(data);
  const account = (username: string) =>
    data.accounts.insert({
      accountKey: newAccountKey(),
      username,
      passwordHash: "h",
      parentId: null,
      createdAt: 0,
    }).id;
  return { data, store: new IdempotencyStore(data.db, data.box), account };
}

const T0 = Date.UTC(2026, 0, 1);
const request = (body: unknown, path = "/settings/1/accounts/A/api-keys") => ({ method: "POST", path, body });
const answer = (body: unknown) => ({ status: 200, body: JSON.stringify(body) });
const rowCount = (data: DataDir) =>
  data.db.prepare("SELECT count(*) FROM idempotent_requests").pluck().get() as number;

test("canonical JSON ignores key order at every depth and keeps array order", () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [2, 1], c: null } }), '{"a":{"c":null,"d":[2,1]},"b":1}');
  assert.equal(canonicalJson({ a: 1, b: 2 }), canonicalJson({ b: 2, a: 1 }));
  assert.notEqual(canonicalJson([1, 2]), canonicalJson([2, 1]));
  assert.equal(canonicalJson(undefined), canonicalJson({}));
  assert.equal(canonicalJson("x"), '"x"');
});

test("the digest tells apart account, method, path and body, not the body's key order", async () => {
  const { store } = await fresh();
  const base = store.digestOf(1, request({ name: "a", permissions: ["ALL"] }));
  assert.equal(base.length, 32);
  assert.ok(base.equals(store.digestOf(1, request({ permissions: ["ALL"], name: "a" }))));
  assert.ok(
    base.equals(store.digestOf(1, { ...request({ name: "a", permissions: ["ALL"] }), method: "post" })),
  );
  for (const other of [
    store.digestOf(2, request({ name: "a", permissions: ["ALL"] })),
    store.digestOf(1, { ...request({ name: "a", permissions: ["ALL"] }), method: "PUT" }),
    store.digestOf(1, request({ name: "a", permissions: ["ALL"] }, "/settings/1/accounts/B/api-keys")),
    store.digestOf(1, request({ name: "a" })),
    store.digestOf(1, request({ name: "a", permissions: ["TFA"] })),
  ]) {
    assert.ok(!base.equals(other));
  }
  // Keyed: another data key gives another digest of the same request.
  const { store: otherBox } = await fresh();
  assert.ok(!base.equals(otherBox.digestOf(1, request({ name: "a", permissions: ["ALL"] }))));
});

test("a record answers the same request, conflicts with another, and is per account", async () => {
  const { data, store, account } = await fresh();
  const alice = account("alice");
  const bob = account("bob");
  const digest = store.digestOf(alice, request({ name: "a" }));
  assert.deepEqual(store.lookup(alice, "k1", digest, T0), { kind: "new" });
  store.remember(alice, "k1", digest, answer({ key: "K", publicApiKey: "secret-value" }), T0);
  assert.deepEqual(store.lookup(alice, "k1", digest, T0 + 1), {
    kind: "replay",
    answer: answer({ key: "K", publicApiKey: "secret-value" }),
  });
  assert.deepEqual(store.lookup(alice, "k1", store.digestOf(alice, request({ name: "b" })), T0 + 1), {
    kind: "conflict",
  });
  assert.deepEqual(store.lookup(bob, "k1", store.digestOf(bob, request({ name: "a" })), T0 + 1), {
    kind: "new",
  });
  assert.deepEqual(store.lookup(alice, "K1", digest, T0 + 1), { kind: "new" }, "keys are case-sensitive");
  // The answer is stored sealed, bound to its account and key.
  const row = data.db
    .prepare("SELECT status, response_sealed FROM idempotent_requests WHERE account_id = ?")
    .get(alice) as { status: number; response_sealed: Buffer };
  assert.equal(row.status, 200);
  assert.equal(row.response_sealed.indexOf("secret-value"), -1);
  data.db.prepare("UPDATE idempotent_requests SET account_id = ? WHERE account_id = ?").run(bob, alice);
  assert.throws(() => store.lookup(bob, "k1", store.digestOf(alice, request({ name: "a" })), T0 + 1));
});

test("only successful answers are remembered; a live record is never overwritten", async () => {
  const { data, store, account } = await fresh();
  const alice = account("alice");
  const digest = store.digestOf(alice, request({ name: "a" }));
  store.remember(alice, "k", digest, { status: 400, body: "{}" }, T0);
  store.remember(alice, "k", digest, { status: 500, body: "{}" }, T0);
  assert.equal(rowCount(data), 0);
  assert.deepEqual(store.lookup(alice, "k", digest, T0), { kind: "new" });
  store.remember(alice, "k", digest, answer("first"), T0);
  assert.throws(() => store.remember(alice, "k", digest, answer("second"), T0 + 1), /UNIQUE/);
  assert.deepEqual(store.lookup(alice, "k", digest, T0 + 2), { kind: "replay", answer: answer("first") });
});

test("a record expires 24 hours after it was made; the key can then be used for a new request", async () => {
  const { data, store, account } = await fresh();
  const alice = account("alice");
  const first = store.digestOf(alice, request({ name: "a" }));
  const second = store.digestOf(alice, request({ name: "b" }));
  store.remember(alice, "k", first, answer("first"), T0);
  const lastLive = T0 + IDEMPOTENCY_RETENTION_MS - 1;
  assert.equal(store.lookup(alice, "k", first, lastLive).kind, "replay");
  assert.equal(store.lookup(alice, "k", second, lastLive).kind, "conflict");
  const expired = T0 + IDEMPOTENCY_RETENTION_MS;
  assert.deepEqual(store.lookup(alice, "k", first, expired), { kind: "new" });
  assert.deepEqual(store.lookup(alice, "k", second, expired), { kind: "new" });
  // Remembering over the expired record (not purged yet) replaces it.
  store.remember(alice, "k", second, answer("second"), expired);
  assert.equal(rowCount(data), 1);
  assert.deepEqual(store.lookup(alice, "k", second, expired + 1), {
    kind: "replay",
    answer: answer("second"),
  });
  assert.equal(store.lookup(alice, "k", first, expired + 1).kind, "conflict");
});

test("purging deletes expired records only, oldest first, at most a batch at a time", async () => {
  const { data, store, account } = await fresh();
  const alice = account("alice");
  const digest = store.digestOf(alice, request({}));
  const total = IDEMPOTENCY_PURGE_BATCH + 30;
  for (let index = 0; index < total; index++)
    store.remember(alice, `old-${index}`, digest, answer(index), T0 + index);
  store.remember(alice, "fresh", digest, answer("fresh"), T0 + IDEMPOTENCY_RETENTION_MS);
  const now = T0 + IDEMPOTENCY_RETENTION_MS + total;
  assert.equal(store.purgeExpired(now), IDEMPOTENCY_PURGE_BATCH);
  assert.equal(rowCount(data), total - IDEMPOTENCY_PURGE_BATCH + 1);
  const oldest = data.db
    .prepare("SELECT idempotency_key FROM idempotent_requests ORDER BY created_at LIMIT 1")
    .pluck()
    .get();
  assert.equal(oldest, `old-${IDEMPOTENCY_PURGE_BATCH}`);
  assert.equal(store.purgeExpired(now), 30);
  assert.equal(store.purgeExpired(now), 0);
  assert.equal(rowCount(data), 1);
  assert.equal(store.lookup(alice, "fresh", digest, now).kind, "replay");
});
