import assert from "node:assert/strict";
import { test } from "node:test";
import { nextPinExpiry, pinState } from "../../../../../renderer/src/features/pins/pinState.ts";
import { capturedPin } from "./capturedPin.ts";

const pin = capturedPin;

const at = (text: string) => Date.parse(text.replace("+0000", "Z"));

test("a PIN's state: attempts left until it expires, then Expired; verified and used-up PINs stay so", () => {
  const sent = pin("P1"); // expires 12:15:00.000 UTC
  assert.equal(pinState(sent, at("2026-06-15T12:14:59.999+0000")).label, "10 attempts left");
  assert.equal(pinState(sent, at("2026-06-15T12:15:00.000+0000")).label, "Expired", "expired at the instant");
  assert.equal(
    pinState({ ...sent, attemptsRemaining: 1 }, at("2026-06-15T12:00:00.000+0000")).label,
    "1 attempt left",
  );
  assert.equal(pinState({ ...sent, verified: true }, at("2026-06-15T13:00:00.000+0000")).label, "Verified");
  assert.equal(
    pinState({ ...sent, attemptsRemaining: 0 }, at("2026-06-15T13:00:00.000+0000")).label,
    "No attempts left",
  );
});

test("the next expiry is the earliest expiry of the PINs still pending, after now", () => {
  const now = at("2026-06-15T12:05:00.000+0000");
  const pins = [
    { ...pin("late"), expiresAt: "2026-06-15T12:20:00.000+0000" },
    { ...pin("soon"), expiresAt: "2026-06-15T12:10:00.000+0000" },
    { ...pin("gone"), expiresAt: "2026-06-15T12:01:00.000+0000" }, // expired already
    { ...pin("verified"), expiresAt: "2026-06-15T12:06:00.000+0000", verified: true },
    { ...pin("used up"), expiresAt: "2026-06-15T12:07:00.000+0000", attemptsRemaining: 0 },
  ];
  assert.equal(nextPinExpiry(pins, now), at("2026-06-15T12:10:00.000+0000"));
  // Once that one expired, the next is the later one; after the last, there is none.
  assert.equal(nextPinExpiry(pins, at("2026-06-15T12:10:00.000+0000")), at("2026-06-15T12:20:00.000+0000"));
  assert.equal(nextPinExpiry(pins, at("2026-06-15T12:20:00.000+0000")), null);
  assert.equal(nextPinExpiry([], now), null);
});

test("a PIN whose expiry cannot be read never schedules a timer", () => {
  assert.equal(nextPinExpiry([{ ...pin("odd"), expiresAt: "not a date" }], 0), null);
});

test("a message a failure test number kept from the phone says so, with its status, then its PIN's state", () => {
  const kept = { ...pin("P1"), delivered: false, status: "MESSAGE_NOT_SENT" as const };
  const state = pinState(kept, at("2026-06-15T12:00:00.000+0000"));
  assert.equal(state.label, "Not delivered");
  assert.deepEqual(state.detail, { statuses: ["MESSAGE_NOT_SENT"], state: "10 attempts left" });
  assert.equal(state.pending, true, "its PIN can still be verified (and expire)");
  assert.deepEqual(
    pinState({ ...kept, verified: true }, at("2026-06-15T12:00:00.000+0000")).detail,
    { statuses: ["MESSAGE_NOT_SENT"], state: "Verified" },
    "a verification the service counted shows, though the phone never got the message",
  );
  assert.deepEqual(
    pinState({ ...kept, ncStatus: "NC_DESTINATION_NOT_REACHABLE" }, at("2026-06-15T12:00:00.000+0000"))
      .detail,
    { statuses: ["NC_DESTINATION_NOT_REACHABLE", "MESSAGE_NOT_SENT"], state: "10 attempts left" },
    "an SMS to a number Number Lookup refused says so, not just MESSAGE_NOT_SENT",
  );
  assert.equal(
    pinState({ ...kept, delivered: true }, at("2026-06-15T12:00:00.000+0000")).label,
    "10 attempts left",
  );
});
