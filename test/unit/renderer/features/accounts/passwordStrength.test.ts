import assert from "node:assert/strict";
import { test } from "node:test";
import { passwordStrength } from "../../../../../renderer/src/features/accounts/passwordStrength.ts";

const level = (password: string, username?: string) => passwordStrength(password, username).level;

test("under 8 characters is too short, whatever they are", () => {
  assert.equal(level(""), "too-short");
  assert.equal(level("Xq7#pL2"), "too-short");
  assert.match(passwordStrength("abc").hint, /at least 8 characters/);
});

test("the username, common words and runs make a password weak", () => {
  assert.equal(level("qa-sub-2026!", "qa-sub"), "weak");
  assert.equal(level("MyPassword99"), "weak");
  assert.equal(level("12345678"), "weak");
  assert.equal(level("aaaaaaaaaaaa"), "weak");
  assert.equal(level("abcdefghijkl"), "weak");
});

test("longer and more kinds of characters score higher", () => {
  assert.equal(level("tulipmoon"), "weak");
  assert.equal(level("tulip-moon"), "fair");
  assert.equal(level("tulipmoonriver"), "good");
  assert.equal(level("Tulip-Moon-River-88"), "strong");
  // The 32-character passwords Keydesk generates.
  assert.equal(level("kQ2x9_Vd-3LmZr8TqP0wYb6NcJ4hF1sA"), "strong");
  assert.ok(passwordStrength("tulipmoonriver").score > passwordStrength("tulipmoon").score);
});

test("every verdict comes with a hint in words", () => {
  for (const password of ["x", "password1", "tulipmoonriver", "Tulip-Moon-River-88"]) {
    assert.ok(passwordStrength(password).hint.length > 0);
  }
});
