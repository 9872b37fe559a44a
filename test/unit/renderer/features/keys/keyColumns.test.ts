import assert from "node:assert/strict";
import { test } from "node:test";
import { columnsFor } from "../../../../../renderer/src/features/keys/keyColumns.ts";

const ids = (width: number) => columnsFor(width).columns.map((column) => column.id);

test("the name, state and actions are there at every width; other columns join as the table widens", () => {
  assert.deepEqual(ids(500), ["name", "state", "actions"]);
  assert.deepEqual(ids(750), ["name", "state", "validTo", "actions"]);
  assert.deepEqual(ids(850), ["name", "permissions", "state", "validTo", "actions"]);
  assert.deepEqual(ids(980), ["name", "permissions", "state", "validTo", "lastUsed", "actions"]);
  assert.deepEqual(ids(1230), [
    "name",
    "permissions",
    "state",
    "validTo",
    "lastUsed",
    "hint",
    "keyId",
    "actions",
  ]);
  assert.deepEqual(ids(1300), [
    "name",
    "permissions",
    "state",
    "validTo",
    "lastUsed",
    "hint",
    "keyId",
    "ips",
    "actions",
  ]);
  assert.deepEqual(ids(1400), [
    "name",
    "permissions",
    "state",
    "validTo",
    "lastUsed",
    "created",
    "hint",
    "keyId",
    "ips",
    "actions",
  ]);
});

test("the columns' least widths fit the table at each width a column joins", () => {
  for (const width of [680, 800, 900, 1020, 1150, 1300, 1400]) {
    const least = columnsFor(width)
      .template.split(" ")
      .map((track) => Number((/^(\d+)px$/.exec(track) ?? /^minmax\((\d+)px/.exec(track))?.[1]))
      .reduce((a, b) => a + b, 0);
    assert.ok(least <= width, `${width}: the columns need ${least} px`);
  }
});
