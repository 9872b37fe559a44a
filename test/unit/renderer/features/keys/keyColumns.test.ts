import assert from "node:assert/strict";
import { test } from "node:test";
import { columnsFor } from "../../../../../renderer/src/features/keys/keyColumns.ts";

const ids = (width: number) => columnsFor(width).columns.map((column) => column.id);

test("the name, state and actions are there at every width; other columns join as the table widens", () => {
  assert.deepEqual(ids(500), ["name", "state", "actions"]);
  assert.deepEqual(ids(750), ["name", "state", "validTo", "actions"]);
  assert.deepEqual(ids(700), ["name", "state", "actions"]);
  assert.deepEqual(ids(850), ["name", "permissions", "state", "validTo", "actions"]);
  assert.deepEqual(ids(980), ["name", "permissions", "state", "validTo", "actions"]);
  assert.deepEqual(ids(1010), ["name", "permissions", "state", "validTo", "lastUsed", "actions"]);
  assert.deepEqual(ids(1230), ["name", "permissions", "state", "validTo", "lastUsed", "actions"]);
  // A 1440 px window with a 15 px scroll bar: Created is there (docs/desktop.md).
  assert.deepEqual(ids(1391), ["name", "permissions", "state", "validTo", "lastUsed", "created", "actions"]);
  assert.deepEqual(ids(1600), [
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
  for (const width of [710, 830, 1000, 1380, 1480, 1560]) {
    const least = columnsFor(width)
      .template.split(" ")
      .map((track) => Number((/^(\d+)px$/.exec(track) ?? /^minmax\((\d+)px/.exec(track))?.[1]))
      .reduce((a, b) => a + b, 0);
    assert.ok(least <= width, `${width}: the columns need ${least} px`);
  }
});

test("the name has the spare width: at 1280 and 1440 px (with or without a scroll bar) it gets at least 340 px", () => {
  for (const width of [1231, 1246, 1391, 1406]) {
    const fixed = columnsFor(width)
      .template.split(" ")
      .filter((track) => track.endsWith("px") && !track.startsWith("minmax"))
      .map((track) => Number.parseInt(track, 10))
      .reduce((a, b) => a + b, 0);
    const flexible = columnsFor(width)
      .template.split(" ")
      .filter((track) => track.startsWith("minmax"));
    assert.deepEqual(flexible, ["minmax(140px,1fr)"], `${width}: the name is the one flexible column`);
    assert.ok(width - fixed >= 340, `${width}: the name has ${width - fixed} px`);
  }
});
