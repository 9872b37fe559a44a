import assert from "node:assert/strict";
import { test } from "node:test";
import {
  fragmentOf,
  keysWithHint,
  keysWithHintAnywhere,
  searchRows,
  searchTargetOf,
} from "../../../../../renderer/src/features/keys/keySearch.ts";
import type { ApiKeyView } from "../../../../../shared/bridge.ts";

test("the search text is a key id, a publicApiKey, a hint, or a piece of a name", () => {
  assert.deepEqual(searchTargetOf(" 0123456789abcdef0123456789ABCDEF "), {
    kind: "keyId",
    id: "0123456789ABCDEF0123456789ABCDEF",
  });
  const publicApiKey = "f87f52a1-1b2c-4d5e-8f90-123456789abc-0e1f2a3b4c5d6e7f8a9b0c1d2e3fe7fb";
  assert.deepEqual(searchTargetOf(publicApiKey), { kind: "publicApiKey", value: publicApiKey });
  assert.deepEqual(searchTargetOf("f87f52…e7fb"), { kind: "hint", hint: "f87f52…e7fb" });
  assert.deepEqual(searchTargetOf("f87f52...e7fb"), { kind: "hint", hint: "f87f52…e7fb" });
  assert.deepEqual(searchTargetOf("billing"), { kind: "name" });
  assert.deepEqual(
    searchTargetOf("Payments reconciliation worker for EU"),
    { kind: "name" },
    "spaces: a name",
  );
});

test("a hint finds the keys whose hint begins and ends so", () => {
  const view = (name: string, publicApiKeyHint: string): ApiKeyView => ({
    name,
    publicApiKeyHint,
    key: name,
    accountKey: "A",
    permissions: ["ALL"],
    enabled: true,
  });
  const keys = [view("a", "f87f52…e7fb"), view("b", "f87f99…e7fb"), view("c", "000000…e7fb")];
  assert.deepEqual(
    keysWithHint(keys, "F87F52…E7FB").map((key) => key.name),
    ["a"],
  );
  assert.deepEqual(
    keysWithHint(keys, "f87f…7fb").map((key) => key.name),
    ["a", "b"],
  );
});

test("a key id or hint search shows only the keys found (none while looking), never the whole list beside them", () => {
  const all = [{ key: "A" }, { key: "B" }, { key: "C" }];
  assert.deepEqual(searchRows("keyId", { shown: true, keys: [{ key: "B" }] }, all), {
    rows: [{ key: "B" }],
    narrowed: true,
  });
  assert.deepEqual(searchRows("keyId", { shown: false, keys: [] }, all), { rows: [], narrowed: true });
  assert.deepEqual(searchRows("keyId", { shown: true, keys: [] }, all), { rows: [], narrowed: true });
  assert.deepEqual(searchRows("hint", { shown: true, keys: [{ key: "C" }] }, all).rows, [{ key: "C" }]);
});

test("a publicApiKey found goes first, before (and not again among) the names holding the text; a name search is its rows", () => {
  const names = [{ key: "A" }, { key: "B" }];
  assert.deepEqual(searchRows("publicApiKey", { shown: true, keys: [{ key: "B" }] }, names), {
    rows: [{ key: "B" }, { key: "A" }],
    narrowed: false,
  });
  assert.deepEqual(searchRows("publicApiKey", { shown: false, keys: [] }, names).rows, names);
  assert.deepEqual(searchRows("name", { shown: false, keys: [] }, names), { rows: names, narrowed: false });
  // A piece of a key id or publicApiKey found while the text is searched as a name goes first too.
  assert.deepEqual(searchRows("name", { shown: true, keys: [{ key: "C" }] }, names).rows, [
    { key: "C" },
    { key: "A" },
    { key: "B" },
  ]);
});

test("a piece of a key id or publicApiKey: six or more letters, digits and dashes with a digit; not a whole id or a hint", () => {
  assert.equal(fragmentOf(" 863f15e6573d "), "863f15e6573d");
  assert.equal(fragmentOf("5ACC9CCF-FA0B"), "5ACC9CCF-FA0B");
  assert.equal(
    fragmentOf("863f15e6573dbdc0279aaa4a8a7bde8a-5acc9ccf"),
    "863f15e6573dbdc0279aaa4a8a7bde8a-5acc9ccf",
  );
  assert.equal(fragmentOf("863f1"), null, "shorter than a hint's start");
  assert.equal(fragmentOf("checkout"), null, "a name without a digit");
  assert.equal(fragmentOf("billing 2026"), null, "words");
  assert.equal(fragmentOf("46CE99DD937D058FFFBE1ED6048E473C"), null, "a whole key id is looked up as one");
  assert.equal(fragmentOf("863f15…fc52"), null, "a hint is matched as a hint");
});

test("a hint is matched among the loaded rows and the keys found in the whole account, each key once", () => {
  const view = (key: string, publicApiKeyHint: string): ApiKeyView => ({
    name: key,
    publicApiKeyHint,
    key,
    accountKey: "A",
    permissions: ["ALL"],
    enabled: true,
  });
  const loaded = [view("A", "f87f52…e7fb"), view("B", "000000…0000")];
  const found = [view("A", "f87f52…e7fb"), view("C", "f87f52…e7fb"), view("D", "f87f52…1111")];
  assert.deepEqual(
    keysWithHintAnywhere(loaded, found, "f87f52…e7fb").map((key) => key.key),
    ["A", "C"],
  );
});
