import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import Database from "better-sqlite3";
import { type Db, openDatabase } from "../../../../../electron/service/store/database.ts";
import { GroupCommit } from "../../../../../electron/service/store/groupCommit.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";

let dir: string;
let db: Db;
let reader: Db;

before(async () => {
  dir = await makeTempDir();
  db = openDatabase(join(dir, "g.db"));
  db.exec("CREATE TABLE t (v TEXT NOT NULL)");
  reader = new Database(join(dir, "g.db"), { readonly: true });
});

after(async () => {
  reader.close();
  db.close();
  await removeDir(dir);
});

const insert = (value: string) => () => db.prepare("INSERT INTO t (v) VALUES (?)").run(value).changes;
const visibleToOthers = (value: string) =>
  reader.prepare("SELECT count(*) FROM t WHERE v = ?").pluck().get(value);

test("writes submitted together share one transaction and are answered only after it committed", async () => {
  const writes = new GroupCommit(db);
  const seenInsideSecond: unknown[] = [];
  const first = writes.run(insert("a1"));
  const second = writes.run(() => {
    // Another connection cannot see the first write yet: it is in the same, uncommitted transaction.
    seenInsideSecond.push(visibleToOthers("a1"));
    return insert("a2")();
  });
  const answered = await Promise.all([first, second]);
  assert.deepEqual(answered, [1, 1]);
  assert.deepEqual(seenInsideSecond, [0]);
  assert.equal(visibleToOthers("a1"), 1);
  assert.equal(visibleToOthers("a2"), 1);
});

test("a write that fails rolls back alone; the others of its group are committed", async () => {
  const writes = new GroupCommit(db);
  const results = await Promise.allSettled([
    writes.run(insert("b1")),
    writes.run(() => {
      insert("b-broken")();
      throw new Error("refused");
    }),
    writes.run(insert("b3")),
  ]);
  assert.deepEqual(
    results.map((r) => r.status),
    ["fulfilled", "rejected", "fulfilled"],
  );
  assert.equal(visibleToOthers("b1"), 1);
  assert.equal(visibleToOthers("b-broken"), 0);
  assert.equal(visibleToOthers("b3"), 1);
});

test("writes submitted in later turns form later groups", async () => {
  const writes = new GroupCommit(db);
  await writes.run(insert("c1"));
  assert.equal(visibleToOthers("c1"), 1);
  await writes.run(insert("c2"));
  assert.equal(visibleToOthers("c2"), 1);
});

test("an asynchronous write shares the group's transaction with synchronous ones and is answered after the commit", async () => {
  const writes = new GroupCommit(db);
  const seenInsideAsync: unknown[] = [];
  const first = writes.run(insert("d1"));
  const second = writes.runAsync(async () => {
    seenInsideAsync.push(visibleToOthers("d1"));
    const inserted = await Promise.resolve(insert("d2")());
    return inserted + (await Promise.resolve(insert("d3")()));
  });
  assert.deepEqual(await Promise.all([first, second]), [1, 2]);
  assert.deepEqual(seenInsideAsync, [0]);
  for (const value of ["d1", "d2", "d3"]) assert.equal(visibleToOthers(value), 1);
});

test("an asynchronous write that rejects rolls back alone, after awaiting", async () => {
  const writes = new GroupCommit(db);
  const results = await Promise.allSettled([
    writes.runAsync(async () => insert("e1")()),
    writes.runAsync(async () => {
      await Promise.resolve(insert("e-broken")());
      throw new Error("refused");
    }),
    writes.run(insert("e3")),
  ]);
  assert.deepEqual(
    results.map((r) => r.status),
    ["fulfilled", "rejected", "fulfilled"],
  );
  assert.equal(visibleToOthers("e1"), 1);
  assert.equal(visibleToOthers("e-broken"), 0);
  assert.equal(visibleToOthers("e3"), 1);
});

test("writes submitted while an asynchronous group still runs form the next group, after its commit", async () => {
  const writes = new GroupCommit(db);
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const slow = writes.runAsync(async () => {
    insert("f1")();
    await held;
    return 1;
  });
  await new Promise((resolve) => setImmediate(resolve));
  const next = writes.run(() => {
    // The slow group has committed by the time this one runs.
    return visibleToOthers("f1");
  });
  await new Promise((resolve) => setImmediate(resolve));
  release();
  assert.deepEqual(await Promise.all([slow, next]), [1, 1]);
});
