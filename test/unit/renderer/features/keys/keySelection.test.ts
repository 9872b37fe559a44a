import assert from "node:assert/strict";
import { test } from "node:test";
import {
  bulkSelectionOf,
  changingCount,
  isSelected,
  NOTHING_SELECTED,
  selectedCount,
  selectKey,
  selectLoaded,
} from "../../../../../renderer/src/features/keys/keySelection.ts";

const rows = ["a", "b", "c", "d", "e"].map((key) => ({ key }));

test("a click selects one key; a shift-click selects the rows from the last one clicked", () => {
  let selection = selectKey(NOTHING_SELECTED, rows, "b", true, false);
  selection = selectKey(selection, rows, "d", true, true);
  assert.deepEqual(
    rows.filter((row) => isSelected(selection, row.key)).map((row) => row.key),
    ["b", "c", "d"],
  );
  // Upwards, and unselecting a range.
  selection = selectKey(selection, rows, "c", false, true);
  assert.deepEqual(
    rows.filter((row) => isSelected(selection, row.key)).map((row) => row.key),
    ["b"],
  );
  assert.equal(selectedCount(selection, 100), 1);
});

test("all matching the filter is the filter with its exceptions, counted from the service's count", () => {
  let selection = { mode: "matching" as const, except: new Set<string>(), anchor: null };
  const unselected = selectKey(selection, rows, "c", false, false);
  assert.equal(isSelected(unselected, "c"), false);
  assert.equal(isSelected(unselected, "zz-not-loaded"), true);
  assert.equal(selectedCount(unselected, 1000), 999);
  assert.equal(selectedCount(unselected, undefined), undefined);
  assert.deepEqual(bulkSelectionOf(unselected, { nameContains: "x" }), {
    query: { nameContains: "x" },
    except: ["c"],
  });
  selection = selectLoaded(unselected, rows, true) as typeof selection;
  assert.deepEqual(bulkSelectionOf(selection, {}), { query: {}, except: [] });
});

test("the header's checkbox selects the loaded rows by name", () => {
  const selection = selectLoaded(NOTHING_SELECTED, rows, true);
  assert.deepEqual(bulkSelectionOf(selection, {}), { keys: ["a", "b", "c", "d", "e"] });
  assert.equal(selectedCount(selectLoaded(selection, rows, false), 5), 0);
});

test("a bulk change counts only the selected keys it changes: those not in that state already", () => {
  const states = [
    { key: "a", enabled: true },
    { key: "b", enabled: false },
    { key: "c", enabled: true },
    { key: "d", enabled: false },
  ];
  const named = { mode: "keys" as const, keys: new Set(["a", "b", "c", "x"]), anchor: null };
  // "x" is not loaded: it may change, so it counts.
  assert.equal(changingCount(named, states, false, undefined), 3);
  assert.equal(changingCount(named, states, true, undefined), 2);
  const matching = { mode: "matching" as const, except: new Set(["a", "b"]), anchor: null };
  // 40 enabled keys match the filter; "a", one of them, is left out.
  assert.equal(changingCount(matching, states, false, 40), 39);
  assert.equal(changingCount(matching, states, true, 20), 19);
  assert.equal(changingCount(matching, states, false, undefined), undefined);
});
