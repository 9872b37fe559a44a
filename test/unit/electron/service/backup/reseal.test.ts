import assert from "node:assert/strict";
import { test } from "node:test";
import Database from "better-sqlite3";
import { RESEALED_COLUMNS } from "../../../../../electron/service/backup/reseal.ts";
import { migrateTo, SCHEMA_VERSION } from "../../../../../electron/service/store/database.ts";

/** A restore under another data key seals every secret again: none may be added to the schema unseen. */

test("every sealed or keyed-digest column of the schema is one resealDatabase handles", () => {
  const db = new Database(":memory:");
  migrateTo(db, SCHEMA_VERSION);
  const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as {
    name: string;
  }[];
  const found: Record<string, string[]> = {};
  for (const { name } of tables) {
    const columns = (db.pragma(`table_info(${name})`) as { name: string }[])
      .map((column) => column.name)
      .filter((column) => /_(sealed|digest)$/.test(column));
    if (columns.length > 0) found[name] = columns.sort();
  }
  db.close();
  const handled = Object.fromEntries(
    Object.entries(RESEALED_COLUMNS).map(([table, columns]) => [table, [...columns].sort()]),
  );
  assert.deepEqual(found, handled);
});
