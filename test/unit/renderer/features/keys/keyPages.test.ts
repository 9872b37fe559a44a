import assert from "node:assert/strict";
import { test } from "node:test";
import {
  countLine,
  filtersOf,
  isFiltered,
  type KeyPages,
  keyQueryOf,
  rowsOf,
  withJustCreated,
  withKeyChanged,
  withKeyEnabled,
} from "../../../../../renderer/src/features/keys/keyPages.ts";
import { filterKeys } from "../../../../../renderer/src/features/keys/keyState.ts";
import type { ApiKeyView } from "../../../../../shared/bridge.ts";

function view(name: string, enabled = true, permissions: ApiKeyView["permissions"] = ["ALL"]): ApiKeyView {
  return { name, enabled, permissions, key: `id-${name}`, accountKey: "A", publicApiKeyHint: "abc…def" };
}

const pages = (...lists: ApiKeyView[][]): KeyPages => ({
  pages: lists.map((keys, index) => ({ keys, nextCursor: index < lists.length - 1 ? `c${index}` : null })),
  pageParams: lists.map((_, index) => (index === 0 ? null : `c${index - 1}`)),
});

test("the filters become the service's query, and back; blank filters are no query", () => {
  assert.deepEqual(keyQueryOf({ state: "all", permission: "any", name: "  " }), {});
  assert.equal(isFiltered({}), false);
  const query = keyQueryOf({ state: "disabled", permission: "TFA", name: " Alpha " });
  assert.deepEqual(query, { state: "disabled", permission: "TFA", nameContains: "Alpha" });
  assert.equal(isFiltered(query), true);
  assert.deepEqual(keyQueryOf({ state: "expiring-soon", permission: "any", name: "" }), {
    state: "expiring-soon",
  });
  for (const filters of [
    { state: "disabled", permission: "TFA", name: "Alpha" },
    { state: "enabled", permission: "ALL", name: "" },
    { state: "expired", permission: "any", name: "" },
    { state: "all", permission: "any", name: "" },
  ] as const) {
    assert.deepEqual(filtersOf(keyQueryOf(filters)), filters);
  }
  // Rows narrowed locally under a query are the ones the service would answer for it.
  const keys = [view("Alpha", false, ["TFA"]), view("alphabet"), view("beta", false, ["TFA"])];
  assert.deepEqual(
    filterKeys(keys, filtersOf(query)).map((key) => key.name),
    ["Alpha"],
  );
});

test("the rows are every loaded page's, in order", () => {
  assert.deepEqual(rowsOf(undefined), []);
  const data = pages([view("a"), view("b")], [view("c")]);
  assert.deepEqual(
    rowsOf(data).map((key) => key.name),
    ["a", "b", "c"],
  );
});

test("a key just created is on top while no loaded page has it, and in its place once one has", () => {
  const rows = [{ key: "A" }, { key: "B" }];
  assert.deepEqual(withJustCreated(rows, { key: "Z" }), [{ key: "Z" }, { key: "A" }, { key: "B" }]);
  assert.equal(withJustCreated(rows, { key: "B" }), rows);
  assert.equal(withJustCreated(rows, null), rows);
});

test("a toggle changes the row in whichever page holds it, and leaves the rest untouched", () => {
  const data = pages([view("a"), view("b")], [view("c"), view("d")]);
  const toggled = withKeyEnabled(data, "id-c", false);
  assert.ok(toggled);
  assert.equal(rowsOf(toggled).find((key) => key.name === "c")?.enabled, false);
  assert.equal(toggled.pages[0], data.pages[0], "the other page is the same object");
  assert.deepEqual(toggled.pageParams, data.pageParams);
  assert.equal(rowsOf(data).find((key) => key.name === "c")?.enabled, true, "the old data is not changed");
  assert.equal(withKeyEnabled(data, "id-nope", false), data);
  assert.equal(withKeyEnabled(undefined, "id-a", false), undefined);
});

test("the service's answer replaces the row, or takes it out of a list it no longer matches", () => {
  const data = pages([view("a"), view("b")], [view("c")]);
  const renamed = { ...view("c"), name: "c renamed", enabled: false };
  assert.deepEqual(
    rowsOf(withKeyChanged(data, renamed)).map((key) => [key.name, key.enabled]),
    [
      ["a", true],
      ["b", true],
      ["c renamed", false],
    ],
  );
  assert.deepEqual(
    rowsOf(withKeyChanged(data, renamed, { state: "enabled" })).map((key) => key.name),
    ["a", "b"],
  );
  assert.deepEqual(
    rowsOf(withKeyChanged(data, renamed, { nameContains: "RENAMED" })).map((key) => key.name),
    ["a", "b", "c renamed"],
  );
});

test("the count line: N keys, M of N keys, and a quiet placeholder while counting", () => {
  const line = (input: Partial<Parameters<typeof countLine>[0]>) =>
    countLine({
      filtered: false,
      rows: 0,
      loadedAll: false,
      total: undefined,
      matching: undefined,
      ...input,
    });
  assert.equal(line({}), "Counting keys…");
  assert.equal(line({ rows: 200, total: 1_000_000 }), "1,000,000 keys");
  assert.equal(
    line({ rows: 1, loadedAll: true }),
    "1 key",
    "every row loaded: no need to wait for the count",
  );
  assert.equal(line({ rows: 3, loadedAll: true, total: 3 }), "3 keys");
  assert.equal(line({ filtered: true, rows: 200, total: 1500, matching: 750 }), "750 of 1,500 keys");
  assert.equal(line({ filtered: true, rows: 200, total: 1500 }), "… of 1,500 keys");
  assert.equal(
    line({ filtered: true, rows: 2, loadedAll: true, total: 1500, matching: 9 }),
    "2 of 1,500 keys",
  );
  assert.equal(line({ filtered: true, rows: 2, loadedAll: true }), "2 of … keys");
  assert.equal(line({ filtered: true, rows: 5, loadedAll: true, total: 5 }), "5 keys");
  assert.equal(line({ filtered: true, rows: 0, loadedAll: true, total: 1 }), "0 of 1 key");
});

test("a toggled or edited row keeps its usage and creation time: the update's answer carries neither", () => {
  const usage = {
    lastUsedAt: "2026-11-28T10:00:00.000+0000",
    lastUsedFrom: "10.0.0.1",
  } as ApiKeyView["usage"];
  const listed = { ...view("c"), usage, createdAt: "2026-11-01T00:00:00.000+0000" };
  const data = pages([view("a")], [listed]);
  const { usage: _usage, createdAt: _createdAt, ...answer } = { ...listed, enabled: false };
  const row = rowsOf(withKeyChanged(data, answer as ApiKeyView)).find((key) => key.name === "c");
  assert.deepEqual([row?.enabled, row?.usage, row?.createdAt], [false, usage, listed.createdAt]);
});
