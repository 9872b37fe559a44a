import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { formatApiDateTime, parseApiDateTime } from "../../../shared/datetime.ts";

test("formats instants as UTC with milliseconds and a +0000 offset", () => {
  assert.equal(formatApiDateTime(Date.UTC(2026, 0, 31, 13, 45, 0, 7)), "2026-01-31T13:45:00.007+0000");
  const yearFive = new Date(0);
  yearFive.setUTCFullYear(5, 1, 3);
  assert.equal(formatApiDateTime(yearFive.getTime()), "0005-02-03T00:00:00.000+0000");
});

test("reads the offset in +hhmm, -hhmm, +hh:mm and Z forms", () => {
  const utc = Date.UTC(2026, 0, 31, 12, 45);
  assert.equal(parseApiDateTime("2026-01-31T13:45:00.000+0100"), utc);
  assert.equal(parseApiDateTime("2026-01-31T07:15:00.000-05:30"), utc);
  assert.equal(parseApiDateTime("2026-01-31T13:45:00.000+01:00"), utc);
  assert.equal(parseApiDateTime("2026-01-31T12:45:00.000Z"), utc);
});

test("rejects anything that is not the documented shape or not a real instant", () => {
  for (const text of [
    "2026-01-31T13:45:00+0100", // no milliseconds
    "2026-01-31T13:45:00.0+0100",
    "2026-01-31 13:45:00.000+0100",
    "2026-01-31T13:45:00.000", // no offset
    "2026-13-01T00:00:00.000Z",
    "2026-02-29T00:00:00.000Z", // not a leap year
    "2026-04-31T00:00:00.000Z",
    "2026-01-01T24:00:00.000Z",
    "2026-01-01T00:60:00.000Z",
    "2026-01-01T00:00:60.000Z",
    "2026-01-01T00:00:00.000+2500",
    "2026-01-01T00:00:00.000+1860", // offset minutes over 59
    "2026-01-01T00:00:00.000+1801", // beyond ±18:00
    "0000-01-01T00:00:00.000+0100", // before year 1 in UTC
    "２０２６-01-01T00:00:00.000Z", // full-width digits
    " 2026-01-01T00:00:00.000Z",
    "",
  ]) {
    assert.equal(parseApiDateTime(text), null, text);
  }
  assert.equal(parseApiDateTime("2024-02-29T00:00:00.000Z"), Date.UTC(2024, 1, 29));
});

const YEAR_1 = -62135596800000; // 0001-01-01T00:00:00.000Z

test("formatting then parsing gives back the same instant for every representable one", () => {
  assert.equal(formatApiDateTime(YEAR_1), "0001-01-01T00:00:00.000+0000");
  assert.equal(parseApiDateTime("1900-12-31T23:59:59.999+0000"), Date.UTC(1900, 11, 31, 23, 59, 59, 999));
  fc.assert(
    fc.property(fc.integer({ min: YEAR_1, max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) }), (time) => {
      assert.equal(parseApiDateTime(formatApiDateTime(time)), time);
    }),
    { numRuns: 2000 },
  );
});

test("the same instant written with any valid offset parses to the same time", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: YEAR_1 + 86_400_000, max: Date.UTC(9999, 11, 30) }),
      fc.integer({ min: -18 * 60, max: 18 * 60 }),
      (time, offset) => {
        const local = new Date(time + offset * 60_000);
        const text = formatApiDateTime(local.getTime()).slice(0, 23);
        const sign = offset < 0 ? "-" : "+";
        const hh = String(Math.floor(Math.abs(offset) / 60)).padStart(2, "0");
        const mm = String(Math.abs(offset) % 60).padStart(2, "0");
        assert.equal(parseApiDateTime(`${text}${sign}${hh}${mm}`), time);
        assert.equal(parseApiDateTime(`${text}${sign}${hh}:${mm}`), time);
      },
    ),
    { numRuns: 2000 },
  );
});
