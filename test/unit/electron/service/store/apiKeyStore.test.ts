import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { type DataDir, openDataDir } from "../../../../../electron/service/dataDir.ts";
import { newKeyId, newPublicApiKey } from "../../../../../electron/service/domain/identifiers.ts";
import type { ApiKeyFilter, KeySort } from "../../../../../electron/service/store/store.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";
import { addStoredAccount } from "../../../../harness/tempDataDir.ts";

/**
 * Sorted scans of the key store: step after step (small windows, small limits) they give the
 * account's matching keys in the sort's order, each once, whatever the windows cut.
 */

let dir: string;
let data: DataDir;
let ownerId: number;
const NOW = Date.parse("2026-06-15T12:00:00Z");
const DAY = 24 * 3600_000;
interface Row {
  id: number;
  name: string;
  validFrom: number | null;
  validTo: number | null;
  enabled: boolean;
}
const owned: Row[] = [];
/** The SQL of every statement the store prepared after it opened (its lists' statements are prepared when first used). */
const prepared: string[] = [];

before(async () => {
  dir = await makeTempDir();
  data = openDataDir({ dataDir: dir, dataKey: randomBytes(32) });
  const prepare = data.db.prepare.bind(data.db);
  data.db.prepare = ((sql: string) => {
    prepared.push(sql);
    return prepare(sql);
  }) as typeof data.db.prepare;
  const account = (username: string) => addStoredAccount(data, username);
  const owner = account("owner");
  const other = account("other");
  ownerId = owner.id;
  for (let index = 0; index < 60; index++) {
    // Names repeat in different cases (ties broken by id); a third have no end.
    const name = ["beta", "Alpha", "alpha", "Gamma", "delta"][index % 5] as string;
    // Every seventh key starts in 1 to 5 days (not yet valid when enabled), its end after its start.
    const validFrom = index % 7 === 2 ? NOW + ((index % 5) + 1) * DAY : null;
    const end = index % 3 === 0 ? null : NOW + ((index * 7) % 20) * DAY - 5 * DAY;
    const validTo = validFrom !== null && end !== null && end <= validFrom ? validFrom + 3 * DAY : end;
    const enabled = index % 4 !== 1;
    const fields = {
      name,
      allowedIPs: null,
      permissions: ["ALL" as const],
      validFrom,
      validTo,
      enabled,
    };
    const stored = data.apiKeys.insert(
      owner.id,
      owner.accountKey,
      { key: newKeyId(), publicApiKey: newPublicApiKey() },
      fields,
      index,
    );
    owned.push({ id: stored.id, name, validFrom, validTo, enabled });
    data.apiKeys.insert(
      other.id,
      other.accountKey,
      { key: newKeyId(), publicApiKey: newPublicApiKey() },
      fields,
      index,
    );
  }
});
after(async () => {
  data?.close();
  await removeDir(dir);
});

/** Every step of a scan, concatenated. */
function scanAll(filter: ApiKeyFilter, limit: number, window: number): number[] {
  const ids: number[] = [];
  let after: number | null = 0;
  for (let steps = 0; after !== null; steps++) {
    assert.ok(steps < 1000, "the scan ends");
    const step = data.apiKeys.scan(ownerId, filter, after, limit, window);
    assert.ok(step.keys.length <= limit);
    ids.push(...step.keys.map((key) => key.id));
    after = step.after;
  }
  return ids;
}

const NO_END = 9e15;
const orders: Record<KeySort["by"], (a: Row, b: Row) => number> = {
  created: (a, b) => a.id - b.id,
  name: (a, b) => {
    const [x, y] = [a.name.toLowerCase(), b.name.toLowerCase()];
    return x < y ? -1 : x > y ? 1 : a.id - b.id;
  },
  validTo: (a, b) => (a.validTo ?? NO_END) - (b.validTo ?? NO_END) || a.id - b.id,
  state: (a, b) => stateRank(a) - stateRank(b) || withinState(a) - withinState(b) || a.id - b.id,
};

/** Within its state a key not valid yet sorts by when it starts, any other by when it ends. */
function withinState(row: Row): number {
  return stateRank(row) === 1 ? (row.validFrom as number) : (row.validTo ?? NO_END);
}

/** The State column's order at NOW: working, not yet valid, expired, disabled. */
function stateRank(row: Row): number {
  if (!row.enabled) return 3;
  if (row.validFrom !== null && row.validFrom > NOW) return 1;
  return row.validTo !== null && row.validTo <= NOW ? 2 : 0;
}

test("every sort, both ways, step by step over small windows: each key once, in order", () => {
  assert.deepEqual(
    [0, 1, 2, 3].map((rank) => owned.filter((row) => stateRank(row) === rank).length > 1),
    [true, true, true, true],
    "keys of every state, several of each",
  );
  for (const by of ["created", "name", "validTo", "state"] as const) {
    for (const desc of [false, true]) {
      const expected = [...owned].sort((a, b) => (desc ? -1 : 1) * orders[by](a, b)).map((row) => row.id);
      for (const [limit, window] of [
        [4, 3],
        [7, 50],
        [200, 4096],
      ] as const) {
        assert.deepEqual(
          scanAll({ sort: { by, desc }, now: NOW }, limit, window),
          expected,
          `${by} ${desc} ${limit}/${window}`,
        );
      }
    }
  }
});

test("sorted and filtered: the filter's keys in the sort's order", () => {
  const expected = owned
    .filter((row) => row.enabled && row.validTo !== null && row.validTo <= NOW)
    .sort(orders.name)
    .map((row) => row.id);
  assert.ok(expected.length > 3);
  const filter: ApiKeyFilter = { state: "expired", now: NOW, sort: { by: "name", desc: false } };
  assert.deepEqual(scanAll(filter, 2, 5), expected);
  for (const desc of [false, true]) {
    const alphas = owned
      .filter((row) => row.name.toLowerCase() === "alpha")
      .sort((a, b) => (desc ? -1 : 1) * orders.state(a, b))
      .map((row) => row.id);
    const byState: ApiKeyFilter = { nameContains: "alpha", now: NOW, sort: { by: "state", desc } };
    assert.deepEqual(scanAll(byState, 3, 4), alphas, `state ${desc}`);
  }
});

test("a filtered sorted scan resumes inside a run of equal values by seeking to its row, not reading the run", () => {
  // A run of 300 working keys with no end (one sort value), and a filter that matches few of them.
  const account = addStoredAccount(data, "runs");
  const ids: number[] = [];
  for (let index = 0; index < 300; index++) {
    const fields = {
      name: index % 60 === 7 ? `needle ${index}` : `hay ${index}`,
      allowedIPs: null,
      permissions: ["ALL" as const],
      validFrom: null,
      validTo: null,
      enabled: true,
    };
    const identity = { key: newKeyId(), publicApiKey: newPublicApiKey() };
    ids.push(data.apiKeys.insert(account.id, account.accountKey, identity, fields, index).id);
  }
  const needles = ids.filter((_, index) => index % 60 === 7);
  const scan = (sort: KeySort) => {
    const found: number[] = [];
    let after: number | null = 0;
    while (after !== null) {
      const step = data.apiKeys.scan(account.id, { nameContains: "needle", now: NOW, sort }, after, 2, 25);
      found.push(...step.keys.map((key) => key.id));
      after = step.after;
    }
    return found;
  };
  for (const by of ["state", "validTo"] as const) {
    assert.deepEqual(scan({ by, desc: false }), needles, by);
    assert.deepEqual(scan({ by, desc: true }), [...needles].reverse(), `${by} desc`);
  }
  const plans = prepared
    .filter((sql) => sql.includes("ORDER BY"))
    .map((sql) => {
      // The plan is the same whatever the values: each parameter the statement names, as 0.
      const params = Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map((match) => [match[1], 0]));
      const plan = data.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[];
      return plan.map((row) => row.detail).join("; ");
    });
  // Every read seeks in an index and reads it in its order (a sort would read the whole range
  // first), and the reads that go on inside the run start at the position's row: equality on the
  // sort value, then the row id (SQLite once read the run from its start to the position).
  assert.ok(plans.length > 0);
  for (const plan of plans) {
    assert.match(plan, /^SEARCH k USING /, plan);
    assert.doesNotMatch(plan, /TEMP B-TREE/, plan);
  }
  for (const index of ["api_keys_by_account_state", "api_keys_by_account_valid_to"]) {
    for (const beyond of [">", "<"]) {
      const seek = `${index} (account_id=? AND <expr>=? AND id${beyond}?)`;
      assert.ok(
        plans.some((plan) => plan.includes(seek)),
        `${seek} in:\n${plans.join("\n")}`,
      );
    }
  }
});

test("state-sorted and filtered by a state: the steps read that state's keys only, not the others' before them", () => {
  // 200 working keys, then 3 disabled ones: filtered to disabled, no step walks the working keys.
  const account = addStoredAccount(data, "one-state");
  const disabled: number[] = [];
  for (let index = 0; index < 203; index++) {
    const fields = {
      name: `key ${index}`,
      allowedIPs: null,
      permissions: ["ALL" as const],
      validFrom: null,
      validTo: index % 2 === 0 ? null : NOW + (index + 1) * DAY,
      enabled: index < 200,
    };
    const identity = { key: newKeyId(), publicApiKey: newPublicApiKey() };
    const { id } = data.apiKeys.insert(account.id, account.accountKey, identity, fields, index);
    if (index >= 200) disabled.push(id);
  }
  for (const desc of [false, true]) {
    for (const limit of [1, 10]) {
      const ids: number[] = [];
      let steps = 0;
      let after: number | null = 0;
      while (after !== null) {
        const filter: ApiKeyFilter = { state: "disabled", now: NOW, sort: { by: "state", desc } };
        const step = data.apiKeys.scan(account.id, filter, after, limit, 20);
        ids.push(...step.keys.map((key) => key.id));
        after = step.after;
        steps++;
      }
      // validTo orders them: the one that ends (index 201), then the two without an end, by id.
      const expected = [disabled[1], disabled[0], disabled[2]];
      assert.deepEqual(ids, desc ? expected.reverse() : expected, `desc ${desc}, limit ${limit}`);
      // A step per page of the three, and one that finds the end (not 200 / 20 steps over working keys).
      assert.ok(steps <= Math.ceil(3 / limit) + 1, `desc ${desc}, limit ${limit}: ${steps} steps`);
    }
  }
  // A cursor on a key enabled since its page: the list goes on with the disabled keys after it.
  const filter: ApiKeyFilter = { state: "disabled", now: NOW, sort: { by: "state", desc: false } };
  const first = data.apiKeys.scan(account.id, filter, 0, 1, 20);
  assert.deepEqual(
    first.keys.map((key) => key.id),
    [disabled[1]],
  );
  const stored = data.apiKeys.byId(disabled[1] as number);
  assert.ok(stored);
  data.apiKeys.update(stored, { ...stored, enabled: true }, NOW);
  const rest = data.apiKeys.scan(account.id, filter, first.after as number, 10, 20);
  assert.deepEqual(
    rest.keys.map((key) => key.id),
    [disabled[0], disabled[2]],
  );
});
