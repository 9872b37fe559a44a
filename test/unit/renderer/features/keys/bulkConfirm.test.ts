import assert from "node:assert/strict";
import { test } from "node:test";
import {
  confirmationMatches,
  TYPED_CONFIRM_MIN_KEYS,
  typedConfirmation,
} from "../../../../../renderer/src/features/keys/bulkConfirm.ts";

test("a click disables up to 19 keys; from 20 on the number of keys is typed", () => {
  assert.equal(TYPED_CONFIRM_MIN_KEYS, 20);
  assert.equal(typedConfirmation(1, "owner"), null);
  assert.equal(typedConfirmation(19, "owner"), null);
  assert.equal(typedConfirmation(20, "owner"), "20");
  assert.equal(typedConfirmation(1200, "owner"), "1200");
});

test("all matching, not counted yet: the account's name is typed", () => {
  assert.equal(typedConfirmation(undefined, "team-prod"), "team-prod");
});

test("what is typed must be what was asked; a number may carry group separators", () => {
  assert.equal(confirmationMatches("20", "20"), true);
  assert.equal(confirmationMatches(" 1,200 ", "1200"), true);
  assert.equal(confirmationMatches("1 200", "1200"), true);
  assert.equal(confirmationMatches("120", "1200"), false);
  assert.equal(confirmationMatches("", "20"), false);
  assert.equal(confirmationMatches("team-prod", "team-prod"), true);
  assert.equal(confirmationMatches("team", "team-prod"), false);
  assert.equal(confirmationMatches("Team-Prod", "team-prod"), false);
});
