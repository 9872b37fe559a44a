import assert from "node:assert/strict";
import { test } from "node:test";
import { deliveryOutcome, TEST_NUMBERS } from "../../../../../electron/service/tfa/testNumbers.ts";

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
