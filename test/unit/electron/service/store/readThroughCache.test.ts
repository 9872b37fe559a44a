import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import Database from "better-sqlite3";
import { type Db, openDatabase } from "../../../../../electron/service/store/database.ts";
import { ExternalChanges } from "../../../../../electron/service/store/externalChanges.ts";
import { ReadThroughCache } from "../../../../../electron/service/store/readThroughCache.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";

let dir: string;
let db: Db;
let otherProcess: Db;

before(async () => {
  dir = await makeTempDir();
  db = openDatabase(join(dir, "c.db"));
  db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)");
  otherProcess = new Database(join(dir, "c.db"));
});

after(async () => {
  otherProcess.close();
  db.close();
  await removeDir(dir);
});

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function counting(value: string | undefined) {
  const loader = {
    loads: 0,
    load: () => {
      loader.loads++;
      return value;
    },
  };
  return loader;
}

test("a value is loaded once and then served from memory", () => {
  const cache = new ReadThroughCache<string>(new ExternalChanges(db), { capacity: 10 });
  const loader = counting("v1");
  assert.equal(cache.get("a", loader.load), "v1");
  assert.equal(cache.get("a", loader.load), "v1");
  assert.equal(loader.loads, 1);
});

test("a missing value is not remembered, so it is found once it exists", () => {
  const cache = new ReadThroughCache<string>(new ExternalChanges(db), { capacity: 10 });
  assert.equal(
    cache.get("b", () => undefined),
    undefined,
  );
  assert.equal(
    cache.get("b", () => "now there"),
    "now there",
  );
});

test("deleting an entry (a write through this process) makes the next read load again", () => {
  const cache = new ReadThroughCache<string>(new ExternalChanges(db), { capacity: 10 });
  cache.get("c", () => "old");
  cache.delete("c");
  assert.equal(
    cache.get("c", () => "new"),
    "new",
  );
});

test("a commit by another connection drops every entry by the next turn", async () => {
  const cache = new ReadThroughCache<string>(new ExternalChanges(db), { capacity: 10 });
  cache.get("d", () => "old");
  await nextTurn();
  otherProcess.prepare("INSERT INTO t (k, v) VALUES ('d', 'new')").run();
  await nextTurn();
  assert.equal(
    cache.get("d", () => "new"),
    "new",
  );
});

test("own commits do not drop the cache (they delete their own entries instead)", async () => {
  const cache = new ReadThroughCache<string>(new ExternalChanges(db), { capacity: 10 });
  const loader = counting("kept");
  cache.get("e", loader.load);
  await nextTurn();
  db.prepare("INSERT INTO t (k, v) VALUES ('e', 'x')").run();
  await nextTurn();
  cache.get("e", loader.load);
  assert.equal(loader.loads, 1);
});

test("holds at most its capacity, forgetting the oldest entry", () => {
  const cache = new ReadThroughCache<string>(new ExternalChanges(db), { capacity: 2 });
  cache.get("1", () => "one");
  cache.get("2", () => "two");
  cache.get("3", () => "three");
  const loader = counting("one again");
  assert.equal(cache.get("1", loader.load), "one again");
  assert.equal(loader.loads, 1);
});

test("an asynchronous load is kept, and then found by peek without loading", async () => {
  const cache = new ReadThroughCache<string>(new ExternalChanges(db), { capacity: 10 });
  assert.equal(cache.peek("f"), undefined);
  assert.equal(await cache.load("f", async () => "loaded"), "loaded");
  assert.equal(cache.peek("f"), "loaded");
});

test("a load that a delete overtook answers what it read but does not keep it", async () => {
  const cache = new ReadThroughCache<string>(new ExternalChanges(db), { capacity: 10 });
  let finish = (_value: string) => {};
  const loading = cache.load("g", () => new Promise<string>((resolve) => (finish = resolve)));
  // The key is written (and its entry deleted) while the read that started before is in flight.
  cache.delete("g");
  finish("before the write");
  assert.equal(await loading, "before the write");
  assert.equal(cache.peek("g"), undefined);
});

test("a load that a commit by another connection overtook is not kept", async () => {
  const cache = new ReadThroughCache<string>(new ExternalChanges(db), { capacity: 10 });
  cache.peek("h");
  let finish = (_value: string) => {};
  const loading = cache.load("h", () => new Promise<string>((resolve) => (finish = resolve)));
  await nextTurn();
  otherProcess.prepare("INSERT INTO t (k, v) VALUES ('h', 'new')").run();
  await nextTurn();
  finish("old");
  assert.equal(await loading, "old");
  assert.equal(cache.peek("h"), undefined);
});

test("deleteWhere drops every entry loaded from the changed row (an account named by the change feed), and only those", () => {
  const cache = new ReadThroughCache<{ account: number }>(new ExternalChanges(db), { capacity: 10 });
  cache.get("k1", () => ({ account: 1 }));
  cache.get("k2", () => ({ account: 1 }));
  cache.get("k3", () => ({ account: 2 }));
  cache.deleteWhere((value) => value.account === 1);
  assert.deepEqual(
    ["k1", "k2", "k3"].map((key) => cache.peek(key)),
    [undefined, undefined, { account: 2 }],
  );
});

test("a load in flight when deleteWhere runs is not kept: it may have read the row before the change", async () => {
  const cache = new ReadThroughCache<{ account: number }>(new ExternalChanges(db), { capacity: 10 });
  const loading = cache.load("k", async () => {
    cache.deleteWhere((value) => value.account === 1);
    return { account: 1 };
  });
  assert.deepEqual(await loading, { account: 1 });
  assert.equal(cache.peek("k"), undefined);
});

test("lookups are counted where the owner asks: a hit when found, a miss when a load must follow", async () => {
  const lookups = { hits: 0, misses: 0 };
  const cache = new ReadThroughCache<string>(new ExternalChanges(db), { capacity: 10 }, lookups);
  cache.get("a", () => "v1");
  cache.get("a", () => "v1");
  cache.get("nothing", () => undefined);
  assert.equal(cache.peek("b"), undefined);
  await cache.load("b", async () => "v2");
  assert.equal(cache.peek("b"), "v2");
  assert.deepEqual(lookups, { hits: 2, misses: 3 });
});

test("an entry older than the maximum age is a miss, counted once, and the reload is kept", async () => {
  let now = 1_000;
  const lookups = { hits: 0, misses: 0 };
  const cache = new ReadThroughCache<string>(
    new ExternalChanges(db),
    { capacity: 10, maxAgeMs: 100, now: () => now },
    lookups,
  );
  await cache.load("a", async () => "old");
  now += 99;
  assert.equal(cache.peek("a"), "old");
  now += 1;
  assert.equal(cache.peek("a"), undefined);
  assert.deepEqual(lookups, { hits: 1, misses: 1 });
  await cache.load("a", async () => "new");
  assert.equal(cache.peek("a"), "new");
});

test("an old entry being reloaded does not stop a concurrent load of another key from being kept", async () => {
  let now = 0;
  const cache = new ReadThroughCache<string>(new ExternalChanges(db), {
    capacity: 10,
    maxAgeMs: 100,
    now: () => now,
  });
  await cache.load("a", async () => "a1");
  now = 200;
  const other = cache.load("b", async () => {
    await nextTurn();
    return "b1";
  });
  assert.equal(cache.peek("a"), undefined);
  await cache.load("a", async () => "a2");
  await other;
  assert.equal(cache.peek("b"), "b1");
});
