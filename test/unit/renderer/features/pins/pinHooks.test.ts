import assert from "node:assert/strict";
import { test } from "node:test";
import {
  cleanFilters,
  pinEventUpdate,
  withCapturedPin,
  withPinState,
} from "../../../../../renderer/src/features/pins/pinHooks.ts";
import type { CapturedPinDto } from "../../../../../shared/tfa.ts";
import { capturedPin } from "./capturedPin.ts";

const pin = capturedPin;

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
