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
