import assert from "node:assert/strict";
import { test } from "node:test";
import {
  asSentence,
  countText,
  newPassphraseError,
  sizeText,
} from "../../../../../renderer/src/features/settings/backupText.ts";

/** The backup views' words: the passphrase rule as the CLI and main apply it, sizes, counts, sentences. */

test("a new backup's passphrase has at least 12 characters, counted as people count them", () => {
  assert.match(newPassphraseError("eleven char") ?? "", /^At least 12 characters/);
  assert.equal(newPassphraseError("twelve chars"), null);
  // Twelve characters, some outside the BMP (two UTF-16 units each): still twelve.
  assert.equal(newPassphraseError("🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑"), null);
  assert.notEqual(newPassphraseError("🔑🔑🔑🔑🔑🔑"), null);
});

test("sizes in bytes, kB, MB and GB", () => {
  assert.equal(sizeText(999), "999 bytes");
  assert.equal(sizeText(201_344), "201 kB");
  assert.equal(sizeText(1_250_000), "1.3 MB");
  assert.equal(sizeText(52_000_000_000), "52 GB");
});

test("counts take the plural but for one", () => {
  assert.equal(countText(1, "account"), "1 account");
  assert.equal(countText(3, "key"), "3 keys");
  assert.equal(countText(0, "key"), "0 keys");
});

test("main's texts end with one full stop, whichever way they came", () => {
  assert.equal(asSentence("nothing was written"), "nothing was written.");
  assert.equal(asSentence("unlock it."), "unlock it.");
});
