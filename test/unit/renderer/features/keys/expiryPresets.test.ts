import assert from "node:assert/strict";
import { test } from "node:test";
import {
  EXPIRY_CHOICES,
  initialChoice,
  validToFor,
  windowProblem,
} from "../../../../../renderer/src/features/keys/expiryPresets.ts";
import type { KeyFormValues } from "../../../../../renderer/src/features/keys/KeyForm.tsx";
import { changedFields } from "../../../../../renderer/src/features/keys/keyEdits.ts";
import { formatApiDateTime } from "../../../../../shared/datetime.ts";

// The test run's zone is the machine's; local times built with `new Date(y, m, d, ...)` are that zone's.
const at = (y: number, m: number, d: number, h: number, min: number, s = 0) =>
  new Date(y, m - 1, d, h, min, s).getTime();

test("the choices are 7, 30, 60 and 90 days, a date and no end, in that order", () => {
  assert.deepEqual(
    EXPIRY_CHOICES.map((choice) => choice.label),
    ["7 days", "30 days", "60 days", "90 days", "Date…", "No end"],
  );
});

test("a preset ends that many calendar days from now at the same local time, to the minute", () => {
  const now = at(2026, 11, 28, 14, 5, 37);
  assert.equal(validToFor("7d", now, null), "2026-12-05 14:05:00");
  assert.equal(validToFor("30d", now, null), "2026-12-28 14:05:00");
  assert.equal(validToFor("60d", now, "2030-01-01 00:00:00"), "2027-01-27 14:05:00", "replaces a date");
  assert.equal(validToFor("90d", now, null), "2027-02-26 14:05:00");
});

test("No end clears the end; Date… keeps the date the picker holds (a preset's, or the key's)", () => {
  const now = at(2026, 11, 28, 14, 5);
  assert.equal(validToFor("none", now, "2027-01-01 10:00:00"), null);
  assert.equal(validToFor("date", now, "2027-01-01 10:00:00"), "2027-01-01 10:00:00");
  assert.equal(validToFor("date", now, null), null);
});

test("a key opens with its end as Date…, or No end", () => {
  assert.equal(initialChoice("2027-01-01 10:00:00"), "date");
  assert.equal(initialChoice(null), "none");
});

test("an edit sends validTo only when a preset changed it", () => {
  const initial: KeyFormValues = {
    name: "billing",
    permissions: ["ALL"],
    allowedIPs: [],
    validFrom: null,
    validTo: "2027-01-01 10:00:00",
    enabled: true,
  };
  const now = at(2026, 11, 28, 14, 5);
  // Date… chosen again over the key's own end: nothing changed, nothing sent.
  assert.deepEqual(
    changedFields(initial, { ...initial, validTo: validToFor("date", now, initial.validTo) }),
    {},
  );
  const thirty = changedFields(initial, { ...initial, validTo: validToFor("30d", now, initial.validTo) });
  assert.deepEqual(Object.keys(thirty), ["validTo"]);
  assert.equal(thirty.validTo, formatApiDateTime(at(2026, 12, 28, 14, 5)));
  assert.deepEqual(
    changedFields(initial, { ...initial, validTo: validToFor("none", now, initial.validTo) }),
    {
      validTo: null,
    },
  );
});

test("an end at or before the start is refused in the form; either one missing is fine", () => {
  assert.equal(windowProblem("2027-01-02 00:00:00", "2027-01-01 00:00:00"), "Must be after Valid from");
  assert.equal(windowProblem("2027-01-01 00:00:00", "2027-01-01 00:00:00"), "Must be after Valid from");
  assert.equal(windowProblem("2027-01-01 00:00:00", "2027-01-01 00:00:01"), undefined);
  assert.equal(windowProblem(null, "2027-01-01 00:00:00"), undefined);
  assert.equal(windowProblem("2027-01-01 00:00:00", null), undefined);
});

test("a preset counts from a later start: a key valid from March gets its days from then, never an end before its start", () => {
  const now = new Date(2026, 10, 28, 14, 5, 37).getTime();
  assert.equal(validToFor("30d", now, null, "2027-03-10 09:00:00"), "2027-04-09 09:00:00");
  assert.equal(
    validToFor("7d", now, null, "2026-01-01 00:00:00"),
    "2026-12-05 14:05:00",
    "a past start: from now",
  );
});
