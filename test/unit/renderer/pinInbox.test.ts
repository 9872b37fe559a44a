import assert from "node:assert/strict";
import { test } from "node:test";
import { cleanFilters, withCapturedPin } from "../../../renderer/src/features/pins/pinHooks.ts";
import type { CapturedPinDto } from "../../../shared/tfa.ts";

function pin(pinId: string): CapturedPinDto {
  return {
    pinId,
    applicationId: "A".repeat(32),
    messageId: "B".repeat(32),
    to: "41793026727",
    channel: "SMS",
    pin: "123456",
    text: "Your code is 123456",
    sentAt: "2026-06-15T12:00:00.000+0000",
    expiresAt: "2026-06-15T12:15:00.000+0000",
    attemptsRemaining: 10,
    verified: false,
  };
}

test("a captured PIN goes first in the inbox list, before the older ones", () => {
  const listed = [pin("P2"), pin("P1")];
  assert.deepEqual(
    withCapturedPin(listed, pin("P3")).map((each) => each.pinId),
    ["P3", "P2", "P1"],
  );
  assert.deepEqual(
    listed.map((each) => each.pinId),
    ["P2", "P1"],
    "the cached list is not changed in place",
  );
});

test("a PIN the list already holds is listed once, first, with the event's state", () => {
  const verified = { ...pin("P1"), verified: true };
  const next = withCapturedPin([pin("P2"), pin("P1")], verified);
  assert.deepEqual(
    next.map((each) => [each.pinId, each.verified]),
    [
      ["P1", true],
      ["P2", false],
    ],
  );
});

test("blank inbox filters are left out, others are trimmed, so that no filter has one cache entry", () => {
  assert.deepEqual(cleanFilters({ to: "  ", applicationId: "" }), {});
  assert.deepEqual(cleanFilters({}), {});
  assert.deepEqual(cleanFilters({ to: " 41793026727 ", applicationId: "APP" }), {
    to: "41793026727",
    applicationId: "APP",
  });
});
