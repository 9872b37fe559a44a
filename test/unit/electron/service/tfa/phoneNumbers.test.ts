import assert from "node:assert/strict";
import { test } from "node:test";
import { normalizeMsisdn } from "../../../../../electron/service/tfa/phoneNumbers.ts";

test("numbers are 5 to 15 digits with an optional leading +, normalized to digits only", () => {
  assert.equal(normalizeMsisdn("41793026727"), "41793026727");
  assert.equal(normalizeMsisdn("+41793026727"), "41793026727");
  assert.equal(normalizeMsisdn("12345"), "12345");
  assert.equal(normalizeMsisdn("123456789012345"), "123456789012345");
  for (const text of [
    "1234",
    "1234567890123456",
    "++4179",
    "41 79",
    "0041-79",
    "+",
    "",
    "٤١٧٩٣٠٢٦٧٢٧",
    "41793026727\n",
  ]) {
    assert.equal(normalizeMsisdn(text), null, JSON.stringify(text));
  }
});
