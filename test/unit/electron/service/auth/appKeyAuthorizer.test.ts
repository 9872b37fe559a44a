import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, test } from "node:test";
import { AppKeyAuthorizer } from "../../../../../electron/service/auth/appKeyAuthorizer.ts";
import { openDataDir } from "../../../../../electron/service/dataDir.ts";
import {
  newAccountKey,
  newKeyId,
  newPublicApiKey,
} from "../../../../../electron/service/domain/identifiers.ts";
import { ApiError } from "../../../../../electron/service/errors.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";

/** The App key authorizer over a real SQLite store: what is awaited, and when a change is seen. */

const dirs: string[] = [];
after(() => Promise.all(dirs.map(removeDir)));

const call = { now: Date.now(), clientAddress: "127.0.0.1", tfaMethod: false };
const fields = { name: "k", allowedIPs: null, permissions: ["ALL" as const], validFrom: null, validTo: null };

async function withKey(options: ConstructorParameters<typeof AppKeyAuthorizer>[3] = {}) {
  const dir = await makeTempDir();
  dirs.push(dir);
  const data = openDataDir({ dataDir: dir, dataKey: randomBytes(32) });
  const { store } = data;
  const publicApiKey = newPublicApiKey();
  const stored = await store.write(async (tx) => {
    const account = await tx.accounts.insert({
      accountKey: newAccountKey(),
      username: "owner",
      passwordHash: "h",
      parentId: null,
      createdAt: 0,
    });
    return tx.apiKeys.insert(
      account.id,
      account.accountKey,
      { key: newKeyId(), publicApiKey },
      { ...fields, enabled: true },
      0,
    );
  });
  const authorizer = new AppKeyAuthorizer(store.changes, store.apiKeys, store.accounts, options);
  return { data, store, stored, publicApiKey, authorizer };
}

test("a key read from the store answers a promise; from then on it is decided without one", async () => {
  const { data, stored, publicApiKey, authorizer } = await withKey();
  const first = authorizer.authorize(publicApiKey, call);
  assert.ok(first instanceof Promise);
  assert.equal((await first).grant.key, stored.key);
  const second = authorizer.authorize(publicApiKey, call);
  assert.ok(!(second instanceof Promise));
  assert.equal(second.grant.key, stored.key);
  data.close();
});

test("a key disabled through the store is refused on the very next call", async () => {
  const { data, store, stored, publicApiKey, authorizer } = await withKey();
  await authorizer.authorize(publicApiKey, call);
  await store.write((tx) => tx.apiKeys.update(stored, { ...fields, enabled: false }, 1));
  await assert.rejects(
    async () => authorizer.authorize(publicApiKey, call),
    (error) => error instanceof ApiError && error.status === 403,
  );
  data.close();
});

test("an unknown key is refused with 401, and known() says whether a key exists", async () => {
  const { data, publicApiKey, authorizer } = await withKey();
  await assert.rejects(
    async () => authorizer.authorize(newPublicApiKey(), call),
    (error) => error instanceof ApiError && error.status === 401,
  );
  assert.equal(await authorizer.knows(publicApiKey), true);
  assert.equal(await authorizer.knows(newPublicApiKey()), false);
  data.close();
});

test("the metrics' listeners: each call's outcome, an unknown key, and the key cache's hits and misses", async () => {
  const outcomes: string[] = [];
  const lookups = { hits: 0, misses: 0 };
  const { data, store, stored, publicApiKey, authorizer } = await withKey({
    onOutcome: (_key, outcome) => outcomes.push(outcome),
    onUnknownKey: () => outcomes.push("unknown"),
    lookups,
  });
  await authorizer.authorize(publicApiKey, call);
  authorizer.authorize(publicApiKey, call);
  await assert.rejects(async () => authorizer.authorize(newPublicApiKey(), call), ApiError);
  await store.write((tx) => tx.apiKeys.update(stored, { ...fields, enabled: false }, 1));
  await assert.rejects(async () => authorizer.authorize(publicApiKey, call), ApiError);
  assert.deepEqual(outcomes, ["allowed", "allowed", "unknown", "disabled"]);
  // Loaded, found, not found (unknown), loaded again after the write dropped it.
  assert.deepEqual(lookups, { hits: 1, misses: 3 });
  data.close();
});
