import assert from "node:assert/strict";
import { test } from "node:test";
import {
  bulkEffect,
  confirmationMatches,
  TYPED_CONFIRM_MIN_KEYS,
  typedConfirmation,
} from "../../../../../renderer/src/features/keys/bulkConfirm.ts";
import { keysWord } from "../../../../../renderer/src/features/keys/keysWord.ts";

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

test("what a bulk change does reads in the singular for one key, and names an uncounted selection", () => {
  assert.equal(
    bulkEffect(true, 1),
    "Applications using this key are accepted again (within its validity, IPs and permissions): an expired key or one not valid yet stays refused.",
  );
  assert.match(
    bulkEffect(true, 2),
    /^Applications using these 2 keys are accepted again \(within each key's/,
  );
  assert.equal(
    bulkEffect(false, 1),
    "Every application using this key is refused from now on (403 FORBIDDEN, “the API key … is disabled”) until the key is enabled again.",
  );
  assert.match(
    bulkEffect(false, 1200),
    /^Every application using these 1,200 keys is refused .* until the keys are enabled again\.$/,
  );
  assert.match(
    bulkEffect(false, undefined),
    /^Every application using the keys matching the filter is refused/,
  );
  assert.equal(keysWord(1), "1 key");
  assert.equal(keysWord(0), "0 keys");
});
