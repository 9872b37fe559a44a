import assert from "node:assert/strict";
import { test } from "node:test";
import {
  pinEventChange,
  pinEventNoteOf,
} from "../../../../../../electron/service/store/postgres/postgresChangeFeed.ts";
import type { PinEventNote } from "../../../../../../electron/service/store/store.ts";

/** The PIN event payloads of the change feed: what one replica writes, another reads back as it was. */

/** A payload as the feed reads it: past `pin-event:` and the origin. */
const fieldsOf = (payload: string) => payload.split(":").slice(2);

const captured: PinEventNote = { type: "captured", accountId: 7, sendId: 12345 };
const state: PinEventNote = {
  type: "state",
  accountId: 7,
  pinId: "0123456789ABCDEF0123456789ABCDEF",
  applicationId: "FEDCBA9876543210FEDCBA9876543210",
  attemptsRemaining: 0,
  verified: true,
};

test("a captured message's and a state change's notes are read back as they were written", () => {
  for (const note of [captured, state, { ...state, attemptsRemaining: 9, verified: false }]) {
    const payload = pinEventChange("a1b2c3", note);
    assert.ok(payload.startsWith("pin-event:a1b2c3:"), payload);
    assert.deepEqual(pinEventNoteOf(fieldsOf(payload)), note);
  }
});

test("a payload this version does not read is no note (it is ignored, never half read)", () => {
  for (const fields of [
    [],
    ["captured", "7"],
    ["captured", "7", "x"],
    ["captured", "-7", "1"],
    ["captured", "7", "1", "2"],
    ["state", "7", "PIN", "APP", "1"],
    ["state", "7", "PIN", "APP", "one", "1"],
    ["state", "7", "PIN", "APP", "1", "true"],
    ["state", "7", "", "APP", "1", "1"],
    ["deleted", "7", "1"],
  ]) {
    assert.equal(pinEventNoteOf(fields), undefined, fields.join(":"));
  }
});
