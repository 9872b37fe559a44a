import assert from "node:assert/strict";
import { join } from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";
import {
  DatabaseVersionError,
  openDatabase,
  SCHEMA_VERSION,
} from "../../../../../electron/service/store/database.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";

const dirs: string[] = [];
after(() => Promise.all(dirs.map(removeDir)));

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
