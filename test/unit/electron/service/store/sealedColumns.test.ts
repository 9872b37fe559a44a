import assert from "node:assert/strict";
import { test } from "node:test";
import Database from "better-sqlite3";
import { migrateTo, SCHEMA_VERSION } from "../../../../../electron/service/store/database.ts";
import { DIGEST_ONLY_TABLES, SEALED_COLUMNS } from "../../../../../electron/service/store/sealedColumns.ts";

/**
 * The sealing upgrade and a restore under another data key go through SEALED_COLUMNS: no sealed
 * value or keyed digest may be added to the schema without it.
 */

test("every sealed or keyed-digest column of the schema is one the re-seal handles", () => {
  const db = new Database(":memory:");
  migrateTo(db, SCHEMA_VERSION);
  const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[];
  const found: string[] = [];
  for (const name of tables) {
    for (const column of db.pragma(`table_info(${name})`) as { name: string }[]) {
      if (/_(sealed|digest)$/.test(column.name)) found.push(`${name}.${column.name}`);
    }
  }
  db.close();
  const handled = SEALED_COLUMNS.flatMap((column) => [
    `${column.table}.${column.column}`,
    ...(column.digestColumn ? [`${column.table}.${column.digestColumn}`] : []),
    // A table dropped under a new key needs no digest computed again.
    ...(column.droppedOnNewKey ? [`${column.table}.request_digest`] : []),
  ]).concat(DIGEST_ONLY_TABLES.map(({ table, digestColumn }) => `${table}.${digestColumn}`));
  assert.deepEqual(found.sort(), handled.sort());
});
