import assert from "node:assert/strict";
import { test } from "node:test";
import { clearIfStillHolds, type TextClipboard } from "../../../renderer/src/pageClipboard.ts";

/** A clipboard in memory; reading it fails when `readable` is false, as a refused browser read does. */
function fakeClipboard(text: string, readable = true): TextClipboard & { text: string } {
  return {
    text,
    async writeText(value) {
      this.text = value;
    },
    async readText() {
      if (!readable) throw new DOMException("Read permission denied.", "NotAllowedError");
      return this.text;
    },
  };
}

test("the page clears the clipboard when it still holds the copied publicApiKey", async () => {
  const clipboard = fakeClipboard("the-key");
  assert.equal(await clearIfStillHolds(clipboard, "the-key", true), "cleared");
  assert.equal(clipboard.text, "");
});

test("the page leaves the clipboard alone when the user copied something else since", async () => {
  const clipboard = fakeClipboard("the user's own text");
  assert.equal(await clearIfStillHolds(clipboard, "the-key", true), "kept");
  assert.equal(clipboard.text, "the user's own text");
});

test("when the page may not read the clipboard it cannot tell, and clears it", async () => {
  const notAsked = fakeClipboard("whatever is there");
  assert.equal(await clearIfStillHolds(notAsked, "the-key", false), "cleared");
  assert.equal(notAsked.text, "");
  const refused = fakeClipboard("whatever is there", false);
  assert.equal(await clearIfStillHolds(refused, "the-key", true), "cleared");
  assert.equal(refused.text, "");
});
