import assert from "node:assert/strict";
import { test } from "node:test";
import { middleCut, middleCutToFit } from "../../../../../renderer/src/features/keys/middleCut.ts";

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

/** Lines of `perLine` characters broken at spaces only, greedily, as a browser breaks a name. */
function wrappedLines(text: string, perLine: number): number {
  let lines = 1;
  let used = 0;
  for (const word of text.split(" ")) {
    const needed = used === 0 ? word.length : used + 1 + word.length;
    if (needed <= perLine) used = needed;
    else {
      lines++;
      used = word.length;
    }
  }
  return lines;
}

test("cut to fit the layout: the longest start the lines hold with the end, where lines break at spaces", () => {
  const twoLines = (candidate: string) => wrappedLines(candidate, 12) <= 2;
  const cut = middleCutToFit("reporting integration tests 1", 9.6, chars, twoLines);
  assert.equal(cut, "reporting in…n tests 1");
  assert.ok(twoLines(cut));
  // Sized as a sum of widths (24 characters on two lines), the cut takes three lines at spaces.
  assert.equal(wrappedLines(middleCut("reporting integration tests 1", 24, chars), 12), 3);
  assert.equal(middleCutToFit("short name", 9.6, chars, twoLines), "short name");
});

test("an end the layout cannot hold beside the ellipsis is shortened until it can", () => {
  const oneLine = (candidate: string) => chars(candidate) <= 6;
  assert.equal(middleCutToFit("abcdefghij", 8, chars, oneLine), "…fghij");
});
