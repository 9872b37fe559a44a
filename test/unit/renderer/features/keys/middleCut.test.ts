import assert from "node:assert/strict";
import { test } from "node:test";
import { middleCut } from "../../../../../renderer/src/features/keys/middleCut.ts";

/** One unit a character: the width is the number of characters. */
const chars = (text: string) => [...text].length;

test("a text that fits is left whole", () => {
  assert.equal(middleCut("billing", 7, chars), "billing");
});

test("a text too wide keeps its start and its end around an ellipsis, within the width", () => {
  const a = middleCut("payments reconciliation worker shard 001", 20, chars);
  const b = middleCut("payments reconciliation worker shard 002", 20, chars);
  assert.equal(a, "payments re…hard 001");
  assert.equal(chars(a), 20);
  assert.notEqual(a, b, "names differing only at the end stay apart");
  assert.ok(b.endsWith("002"));
});

test("characters, not UTF-16 units: an emoji or a Cyrillic letter is never split", () => {
  const cut = middleCut("ключ🔑".repeat(10), 11, chars);
  assert.equal(chars(cut), 11);
  assert.ok(!/[\uD800-\uDFFF]/.test(cut.replace(/🔑/g, "")), "no lone surrogate");
});
