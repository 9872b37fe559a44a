import assert from "node:assert/strict";
import { test } from "node:test";
import {
  cleanFilters,
  pinEventUpdate,
  withCapturedPin,
  withPinState,
} from "../../../renderer/src/features/pins/pinHooks.ts";
import {
  MAX_TIMER_DELAY_MS,
  nextPinExpiry,
  pinState,
  timerDelay,
} from "../../../renderer/src/features/pins/pinState.ts";
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

test("timer delays are never negative and never beyond what setTimeout can hold", () => {
  assert.equal(timerDelay(1_000, 400), 600);
  assert.equal(timerDelay(400, 1_000), 0, "an expiry already passed: at once");
  assert.equal(timerDelay(365 * 24 * 3600 * 1000, 0), MAX_TIMER_DELAY_MS);
  assert.equal(MAX_TIMER_DELAY_MS, 2_147_483_647);
});

test("a captured PIN is put first only in the loaded, idle unfiltered list; every other list is fetched again", () => {
  const unfiltered = ["pins.list", {}];
  const filtered = ["pins.list", { to: "41793026727" }];
  const captured = { type: "pin", pin: pin("P2") } as const;
  assert.deepEqual(pinEventUpdate(unfiltered, { pins: [pin("P1")], fetching: false }, captured), {
    set: [pin("P2"), pin("P1")],
  });
  // Still loading, or reloading: the answer on its way may predate the PIN, so fetch again.
  assert.equal(pinEventUpdate(unfiltered, { pins: undefined, fetching: true }, captured), "refetch");
  assert.equal(pinEventUpdate(unfiltered, { pins: [pin("P1")], fetching: true }, captured), "refetch");
  assert.equal(pinEventUpdate(filtered, { pins: [pin("P1")], fetching: false }, captured), "refetch");
});

test("a verification changes the PIN in every loaded list, filtered or not; a list being fetched is fetched again", () => {
  const listed = pin("P1");
  const state = {
    type: "pin-state",
    state: {
      pinId: "P1",
      applicationId: listed.applicationId,
      to: listed.to,
      attemptsRemaining: 0,
      verified: true,
    },
  } as const;
  for (const queryKey of [
    ["pins.list", {}],
    ["pins.list", { to: listed.to }],
  ]) {
    const update = pinEventUpdate(queryKey, { pins: [listed], fetching: false }, state);
    assert.notEqual(typeof update, "string");
    assert.deepEqual(
      (update as { set: CapturedPinDto[] }).set.map((each) => [each.pinId, each.verified]),
      [["P1", true]],
    );
    assert.equal(pinEventUpdate(queryKey, { pins: [listed], fetching: true }, state), "refetch");
  }
  assert.equal(pinEventUpdate(["pins.list", {}], { pins: undefined, fetching: false }, state), "keep");
});

test("a captured PIN without its application's name (a resend) takes the name of a listed PIN of that application", () => {
  const listed = { ...pin("listed"), applicationName: "Customer login" };
  const resent = pin("resent");
  const [first] = withCapturedPin([listed], resent);
  assert.equal(first?.applicationName, "Customer login");
  const [unknown] = withCapturedPin([], resent);
  assert.equal(unknown?.applicationName, undefined);
});

test("a verification's outcome changes every listed message of that PIN, and no other", () => {
  const first = pin("P1");
  const resent = { ...pin("P1"), channel: "VOICE" as const };
  const other = pin("P2");
  const after = withPinState([resent, other, first], {
    pinId: "P1",
    applicationId: first.applicationId,
    to: first.to,
    attemptsRemaining: 9,
    verified: true,
  });
  assert.deepEqual(
    after.map((each) => [each.pinId, each.attemptsRemaining, each.verified]),
    [
      ["P1", 9, true],
      ["P2", 10, false],
      ["P1", 9, true],
    ],
  );
  const unlisted = [other];
  assert.equal(withPinState(unlisted, { ...after[0], pinId: "P9" } as never), unlisted, "the same list");
});

test("a message a failure test number kept from the phone says so, with its status, whatever its attempts", () => {
  const kept = { ...pin("P1"), delivered: false, status: "MESSAGE_NOT_SENT" as const };
  const state = pinState(kept, at("2026-06-15T12:00:00.000+0000"));
  assert.equal(state.label, "Not delivered (MESSAGE_NOT_SENT)");
  assert.equal(state.pending, false);
  assert.equal(
    pinState({ ...kept, delivered: true }, at("2026-06-15T12:00:00.000+0000")).label,
    "10 attempts left",
  );
});
