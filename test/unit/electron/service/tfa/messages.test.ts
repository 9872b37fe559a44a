import assert from "node:assert/strict";
import { test } from "node:test";
import { renderMessage } from "../../../../../electron/service/tfa/messageText.ts";
import { normalizeMsisdn } from "../../../../../electron/service/tfa/phoneNumbers.ts";
import { deliveryOutcome, TEST_NUMBERS } from "../../../../../electron/service/tfa/testNumbers.ts";

test("{{pin}} and the placeholders given are filled in; others stay as written", () => {
  assert.equal(
    renderMessage("Hi {{name}}, {{pin}} is your {{app}} code", "4821", { name: "Ann" }),
    "Hi Ann, 4821 is your {{app}} code",
  );
  assert.equal(renderMessage("{{pin}}{{pin}}", "12", {}), "1212");
  assert.equal(renderMessage("{{ pin }} {pin} {{pin}", "12", {}), "{{ pin }} {pin} {{pin}");
});

test("values are inserted once: a value that looks like a placeholder is not expanded", () => {
  assert.equal(renderMessage("{{a}} then {{pin}}", "99", { a: "{{pin}}" }), "{{pin}} then 99");
  assert.equal(renderMessage("{{toString}} {{pin}}", "1", {}), "{{toString}} 1");
});

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

test("the test numbers force the failure paths; every other number is delivered", () => {
  assert.deepEqual(deliveryOutcome(TEST_NUMBERS.destinationNotReachable), {
    delivered: false,
    ncStatus: "NC_DESTINATION_NOT_REACHABLE",
    smsStatus: "MESSAGE_NOT_SENT",
    callStatus: "REJECTED_DESTINATION",
  });
  assert.deepEqual(deliveryOutcome(TEST_NUMBERS.messageNotSent), {
    delivered: false,
    ncStatus: "NC_DESTINATION_REACHABLE",
    smsStatus: "MESSAGE_NOT_SENT",
    callStatus: "UNDELIVERABLE_NOT_DELIVERED",
  });
  assert.deepEqual(deliveryOutcome("447700900003"), {
    delivered: true,
    ncStatus: "NC_DESTINATION_REACHABLE",
    smsStatus: "MESSAGE_SENT",
    callStatus: "PENDING_ACCEPTED",
  });
  for (const number of Object.values(TEST_NUMBERS)) {
    assert.match(
      number,
      /^447700900\d{3}$/,
      "test numbers lie in Ofcom's drama range, never assigned to a phone",
    );
  }
});
