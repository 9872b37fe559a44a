import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import pg from "pg";
import { createSecretBox } from "../../../../../electron/service/crypto/secretBox.ts";
import { type DataDir, openDataDir } from "../../../../../electron/service/dataDir.ts";
import type { ApiKeyFields } from "../../../../../electron/service/domain/apiKeyRecords.ts";
import { newPublicApiKey } from "../../../../../electron/service/domain/identifiers.ts";
import { emptyPending, hourOf } from "../../../../../electron/service/domain/keyUsage.ts";
import {
  type KeyLister,
  type ListedAccount,
  pagedLister,
} from "../../../../../electron/service/keyListing.ts";
import { migratePostgres } from "../../../../../electron/service/store/postgres/migrate.ts";
import {
  KEYSET_PAGE_ROWS,
  PostgresKeyPages,
} from "../../../../../electron/service/store/postgres/postgresKeyPages.ts";
import { PostgresStore } from "../../../../../electron/service/store/postgres/postgresStore.ts";
import { inThreadLister } from "../../../../../electron/service/store/sqliteKeyLister.ts";
import type {
  ApiKeyFilter,
  KeySort,
  ListExtras,
  Store,
} from "../../../../../electron/service/store/store.ts";
import { EXPIRING_SOON_MS, KEY_STATE_FILTERS, type Permission } from "../../../../../shared/apiKeys.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";
import {
  type PostgresCluster,
  postgresMissing,
  skipWithoutPostgres,
  testPostgres,
} from "../../../../harness/postgres.ts";

/**
 * The key lists on PostgreSQL answer what SQLite's answer on the same keys: every filter, every
 * order both ways, whole lists, counts and pages walked by their cursors, with include= extras.
 */

const NOW = 1_750_000_000_000;
const DAY = 24 * 3_600_000;
/** More than two keyset pages, so that whole lists cross page boundaries. */
const KEYS = KEYSET_PAGE_ROWS * 2 + 317;

let cluster: PostgresCluster | undefined;
let pool: pg.Pool | undefined;
let dir: string | undefined;
let data: DataDir | undefined;
let sqlite: KeyLister;
let postgres: KeyLister;
let account: ListedAccount;
let box: ReturnType<typeof createSecretBox>;
/** Some of the seeded keys' publicApiKeys and names, for the exact lookups. */
const samples: { publicApiKey: string; name: string }[] = [];

/** A small deterministic generator: the same keys on both stores, run after run. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const NAMES = [
  "alpha",
  "Alpha",
  "ALPHA beta",
  "beta",
  "Éclair",
  "éclair",
  "zeta",
  "Zebra",
  "_under",
  "10",
  "9",
  "ΣΊΣΥΦΟΣ",
];

function fieldsAt(index: number, next: () => number): ApiKeyFields {
  const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)] as T;
  return {
    name: `${pick(NAMES)}${next() < 0.5 ? "" : ` ${index % 37}`}`,
    allowedIPs: next() < 0.2 ? ["10.0.0.0/8"] : null,
    permissions: pick<Permission[]>([["ALL"], ["TFA"], ["ALL", "TFA"]]),
    validFrom: pick([null, null, NOW - DAY, NOW + DAY]),
    validTo: pick([
      null,
      NOW - DAY,
      NOW + DAY,
      NOW + EXPIRING_SOON_MS + DAY,
      NOW + 100 * DAY,
      NOW + 100 * DAY,
    ]),
    enabled: next() < 0.8,
  };
}

/** The same accounts, keys (same row ids, same values) and usage written to a store. */
async function seed(store: Store): Promise<{ id: number; accountKey: string }> {
  const next = random(7);
  const owner = await store.write(async (tx) => {
    const owner = await tx.accounts.insert({
      accountKey: "A".repeat(32),
      username: "owner",
      passwordHash: "hash",
      parentId: null,
      createdAt: NOW,
    });
    const other = await tx.accounts.insert({
      accountKey: "B".repeat(32),
      username: "other",
      passwordHash: "hash",
      parentId: null,
      createdAt: NOW,
    });
    for (let index = 0; index < KEYS; index++) {
      // Another account's keys in between: never listed.
      const target = index % 50 === 3 ? other : owner;
      const identity = {
        key: `key${String(index).padStart(28, "0")}`,
        publicApiKey: identities[index] as string,
      };
      await tx.apiKeys.insert(
        target.id,
        target.accountKey,
        identity,
        fieldsAt(index, next),
        NOW,
        // Two minutes apart, the first ones younger than the "not used since" times below.
        index % 9 === 0 ? null : NOW - index * 120_000,
      );
    }
    return owner;
  });
  const batch = new Map();
  for (let index = 0; index < KEYS; index += 3) {
    const pending = emptyPending(hourOf(NOW));
    pending.allowed = index % 11;
    pending.refused.expired = index % 4;
    pending.lastUsedAt = pending.allowed > 0 ? NOW - index * 60_000 : null;
    pending.lastUsedFrom = pending.allowed > 0 ? "10.0.0.1" : null;
    pending.lastRefusedAt = pending.refused.expired > 0 ? NOW - index : null;
    pending.lastRefusedFrom = pending.refused.expired > 0 ? "10.0.0.2" : null;
    batch.set(`key${String(index).padStart(28, "0")}`, pending);
  }
  await store.write((tx) => tx.usage.write(batch, NOW));
  return owner;
}

const identities = Array.from({ length: KEYS }, () => newPublicApiKey());

before(async () => {
  if (postgresMissing) return;
  const dataKey = randomBytes(32);
  dir = await makeTempDir();
  data = openDataDir({ dataDir: dir, dataKey });
  cluster = await testPostgres();
  pool = new pg.Pool({ connectionString: await cluster.createDatabase(), max: 4 });
  await migratePostgres(pool);
  box = createSecretBox(dataKey);
  const [onSqlite, onPostgres] = [await seed(data.store), await seed(new PostgresStore(pool, box))];
  assert.deepEqual(onSqlite, onPostgres);
  account = { id: onSqlite.id, accountKey: onSqlite.accountKey };
  sqlite = inThreadLister(data.apiKeys);
  postgres = pagedLister(new PostgresKeyPages(pool, box));
  for (const index of [5, 400, KEYS - 2]) {
    const key = await data.store.apiKeys.findByPublicApiKey(identities[index] as string);
    if (key) samples.push({ publicApiKey: key.publicApiKey, name: key.name });
  }
});

after(async () => {
  await pool?.end();
  cluster?.stop();
  data?.close();
  if (dir) await removeDir(dir);
});

const SORTS: (KeySort | undefined)[] = [
  undefined,
  { by: "created", desc: true },
  { by: "name", desc: false },
  { by: "name", desc: true },
  { by: "validTo", desc: false },
  { by: "validTo", desc: true },
  { by: "state", desc: false },
  { by: "state", desc: true },
];

function filters(): ApiKeyFilter[] {
  return [
    {},
    { enabled: false },
    { nameContains: "ALPHA" },
    { nameContains: "é" },
    { nameContains: "σίσ" },
    { permission: "TFA" },
    ...KEY_STATE_FILTERS.map((state) => ({ state, now: NOW })),
    { unusedSince: NOW - 10 * 60_000 },
    { enabled: true, permission: "ALL", nameContains: "a" },
    ...samples.map((sample) => ({ name: sample.name })),
    ...samples.map((sample) => ({ publicApiKey: sample.publicApiKey })),
  ];
}

async function whole(lister: KeyLister, filter: ApiKeyFilter, extras?: ListExtras): Promise<string> {
  let text = "";
  for await (const piece of lister.pieces({ ...account, ...(extras && { extras }) }, filter))
    text += typeof piece === "string" ? piece : Buffer.from(piece).toString("utf8");
  return text;
}

/** Every page of `limit` keys, walked by cursor: the texts and the cursors. */
async function walk(lister: KeyLister, filter: ApiKeyFilter, limit: number): Promise<unknown[]> {
  const pages: unknown[] = [];
  let after = 0;
  for (;;) {
    const page = await lister.page(account, filter, after, limit);
    pages.push(page);
    if (!page.more || page.lastId === undefined) return pages;
    after = page.lastId;
  }
}

test("whole lists and counts: every filter in every order is the SQLite store's answer", async (t) => {
  if (skipWithoutPostgres(t)) return;
  for (const filter of filters()) {
    for (const sort of SORTS) {
      const sorted = { ...filter, ...(sort && { sort }) };
      const label = JSON.stringify(sorted);
      const expected = await whole(sqlite, sorted);
      assert.equal(await whole(postgres, sorted), expected, label);
    }
    assert.equal(
      await postgres.count(account.id, filter),
      await sqlite.count(account.id, filter),
      JSON.stringify(filter),
    );
  }
  // The lists are not trivially empty or whole: the filters select.
  const all = JSON.parse(`[${await whole(postgres, {})}]`) as unknown[];
  assert.ok(all.length > KEYSET_PAGE_ROWS * 2);
  assert.ok(JSON.parse(`[${await whole(postgres, { enabled: false })}]`).length < all.length);
  // "Not used since": neither a key made after that time nor one whose creation is unknown and
  // which came to the store after it (created_at NOW), used or not.
  const unused = JSON.parse(`[${await whole(postgres, { unusedSince: NOW - 10 * 60_000 })}]`) as {
    key: string;
  }[];
  assert.ok(unused.length > 0);
  const indexes = unused.map((key) => Number(key.key.slice(3)));
  assert.ok(indexes.every((index) => index >= 5 && index % 9 !== 0));
  assert.ok(
    indexes.some((index) => index % 3 !== 0) && indexes.some((index) => index % 3 === 0 && index % 11 === 0),
  );
});

test("pages walked by their cursors are SQLite's, in every order", async (t) => {
  if (skipWithoutPostgres(t)) return;
  for (const filter of [{}, { state: "enabled" as const, now: NOW }, { nameContains: "a" }]) {
    for (const sort of SORTS) {
      const sorted = { ...filter, ...(sort && { sort }) };
      assert.deepEqual(
        await walk(postgres, sorted, 250),
        await walk(sqlite, sorted, 250),
        JSON.stringify(sorted),
      );
    }
  }
  // A cursor past the end, and one in the middle of a page.
  assert.deepEqual(
    await postgres.page(account, {}, 10 ** 9, 10),
    await sqlite.page(account, {}, 10 ** 9, 10),
  );
  const sorted: ApiKeyFilter = { sort: { by: "name", desc: true } };
  assert.deepEqual(
    await postgres.page(account, sorted, 777, 10),
    await sqlite.page(account, sorted, 777, 10),
  );
});

test("a page after another account's row, or a row that does not exist, ends a sorted list on both stores", async (t) => {
  if (skipWithoutPostgres(t)) return;
  // The seeded keys have the same row ids on both stores; index 3 is the other account's.
  const store = (data as DataDir).store;
  const other = await store.accounts.byAccountKey("B".repeat(32));
  const theirs = other && (await store.apiKeys.get(other.id, `key${"3".padStart(28, "0")}`));
  assert.ok(theirs);
  const theirRow: number = theirs.id;
  const ended = { texts: [], lastId: undefined, more: false };
  for (const sort of SORTS) {
    if (sort === undefined || sort.by === "created") continue;
    for (const after of [theirRow, 10 ** 9]) {
      const label: string = `${JSON.stringify(sort)} after ${after}`;
      assert.deepEqual(await postgres.page(account, { sort }, after, 10), ended, label);
      assert.deepEqual(await sqlite.page(account, { sort }, after, 10), ended, label);
    }
  }
});

test("include=created and include=usage carry the same values", async (t) => {
  if (skipWithoutPostgres(t)) return;
  const extras: ListExtras = { created: true, usageAt: NOW };
  for (const filter of [
    {},
    { sort: { by: "validTo" as const, desc: true } },
    { unusedSince: NOW - 30 * 60_000 },
  ]) {
    assert.equal(
      await whole(postgres, filter, extras),
      await whole(sqlite, filter, extras),
      JSON.stringify(filter),
    );
    const withExtras = { ...account, extras };
    assert.deepEqual(
      await postgres.page(withExtras, filter, 0, 40),
      await sqlite.page(withExtras, filter, 0, 40),
    );
  }
  const [first] = JSON.parse(`[${await whole(postgres, {}, extras)}]`) as { usage?: unknown }[];
  assert.ok(first?.usage, "the usage is there to compare");
});

test("a whole list stops at its next page once aborted, with the abort's reason", async (t) => {
  if (skipWithoutPostgres(t)) return;
  const controller = new AbortController();
  const reason = new Error("the client went away");
  const pieces: number[] = [];
  await assert.rejects(
    (async () => {
      for await (const piece of postgres.pieces(account, {}, controller.signal)) {
        pieces.push(piece.length);
        controller.abort(reason);
      }
    })(),
    (error) => error === reason,
  );
  assert.equal(pieces.length, 1);
});

/** Every node of an EXPLAIN (FORMAT JSON) plan, the plan's own first. */
function planNodes(node: Record<string, unknown>): Record<string, unknown>[] {
  const children = (node.Plans as Record<string, unknown>[] | undefined) ?? [];
  return [node, ...children.flatMap(planNodes)];
}

test("a state-sorted page reads its states' index ranges in their order: no sort of the account's keys", async (t) => {
  if (skipWithoutPostgres(t)) return;
  const live = pool as pg.Pool;
  // The statements the pages run, seen on their way to the pool (which runs them as ever).
  const statements: { text: string; values: unknown[] }[] = [];
  const seen = Object.create(live) as pg.Pool;
  seen.query = ((config: { text: string; values: unknown[] }) => {
    statements.push(config);
    return live.query(config);
  }) as typeof live.query;
  const pages = pagedLister(new PostgresKeyPages(seen, box));
  for (const state of ["enabled", "expired", "disabled"] as const) {
    for (const desc of [false, true]) {
      await walk(pages, { state, now: NOW, sort: { by: "state", desc } }, 150);
    }
  }
  const reads = statements.filter((statement) => statement.text.includes("ORDER BY"));
  assert.ok(reads.length > 6, "pages after the first read from a position");
  const client = await live.connect();
  try {
    // Sorts and sequential scans made a last resort: a plan with either could not read an index in order.
    await client.query("BEGIN");
    await client.query("SET LOCAL enable_seqscan = off");
    await client.query("SET LOCAL enable_sort = off");
    for (const { text, values } of reads) {
      const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${text}`, values);
      const nodes = planNodes((rows[0]["QUERY PLAN"] as { Plan: Record<string, unknown> }[])[0]?.Plan ?? {});
      const types = nodes.map((node) => node["Node Type"]);
      assert.ok(!types.includes("Sort") && !types.includes("Seq Scan"), `${types.join(" > ")}: ${text}`);
    }
  } finally {
    await client.query("ROLLBACK");
    client.release();
  }
});
