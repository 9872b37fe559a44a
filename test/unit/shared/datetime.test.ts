import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { formatApiDateTime, parseApiDateTime } from "../../../shared/datetime.ts";

const YEAR_1 = -62135596800000; // 0001-01-01T00:00:00.000Z
const LAST = 253402300799999; // 9999-12-31T23:59:59.999Z
const OUTPUT_SHAPE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/;
const RUNS = { numRuns: 3000 };

// ---- an oracle that does not use Date: the proleptic Gregorian calendar by arithmetic ----------

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (year: number, month: number) =>
  month === 2 && isLeap(year) ? 29 : (DAYS_IN_MONTH[month - 1] as number);

/** Days from 1970-01-01 to a civil date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");
const mod = (a: number, b: number) => ((a % b) + b) % b;

type OffsetStyle = "Z" | "+hh:mm" | "+hhmm";

function offsetText(minutes: number, style: OffsetStyle): string {
  if (style === "Z") return "Z";
  const sign = minutes < 0 ? "-" : "+";
  const hh = pad(Math.floor(Math.abs(minutes) / 60));
  const mm = pad(Math.abs(minutes) % 60);
  return style === "+hh:mm" ? `${sign}${hh}:${mm}` : `${sign}${hh}${mm}`;
}

/** Wall-clock fields of epoch milliseconds, computed without Date. */
function civilOf(ms: number) {
  const days = Math.floor(ms / 86_400_000);
  const msOfDay = mod(ms, 86_400_000);
  // Inverse of daysFromCivil (H. Hinnant's civil_from_days).
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return {
    year,
    month,
    day,
    hour: Math.floor(msOfDay / 3_600_000),
    minute: Math.floor(msOfDay / 60_000) % 60,
    second: Math.floor(msOfDay / 1000) % 60,
  };
}

// ---- generators ---------------------------------------------------------------------------------

/** An instant with nanosecond precision: epoch milliseconds plus nanoseconds within that millisecond. */
const instant = fc.record({
  ms: fc.oneof(
    fc.integer({ min: YEAR_1, max: LAST }),
    // The edges of the range, where a carry or an offset crosses it.
    fc.integer({ min: YEAR_1, max: YEAR_1 + 2 * 86_400_000 }),
    fc.integer({ min: LAST - 2 * 86_400_000, max: LAST }),
  ),
  nanos: fc.oneof(fc.integer({ min: 0, max: 999_999 }), fc.constantFrom(0, 499_999, 500_000, 999_999)),
});
const offsetMinutes = fc.oneof(fc.integer({ min: -18 * 60, max: 18 * 60 }), fc.constantFrom(0, -1080, 1080));
/** How a client writes it: 0 (no fraction) to 9 fraction digits, and the offset's style. */
const spelling = fc.record({
  digits: fc.integer({ min: 0, max: 9 }),
  style: fc.constantFrom<OffsetStyle>("Z", "+hh:mm", "+hhmm"),
});

interface Written {
  text: string;
  /** What the parser must answer: the written instant rounded half-up to ms, or null beyond 9999. */
  expected: number | null;
}

/** The instant as a client writes it at an offset, truncated to the digits it prints. */
function write(
  at: { ms: number; nanos: number },
  offset: number,
  how: { digits: number; style: OffsetStyle },
) {
  const minutes = how.style === "Z" ? 0 : offset;
  const local = at.ms + minutes * 60_000;
  const c = civilOf(local);
  if (c.year < 0 || c.year > 9999) return null; // not writable in four digits
  const nanosOfSecond = String(mod(local, 1000) * 1_000_000 + at.nanos).padStart(9, "0");
  const fraction = nanosOfSecond.slice(0, how.digits);
  const text =
    `${pad(c.year, 4)}-${pad(c.month)}-${pad(c.day)}T${pad(c.hour)}:${pad(c.minute)}:${pad(c.second)}` +
    `${fraction ? `.${fraction}` : ""}${offsetText(minutes, how.style)}`;
  const writtenNanos = Number(fraction.padEnd(9, "0"));
  const expected = at.ms - mod(at.ms, 1000) + Math.floor((writtenNanos + 500_000) / 1_000_000);
  return { text, expected: expected > LAST ? null : expected } satisfies Written;
}

// ---- properties ---------------------------------------------------------------------------------

test("any instant, written at any offset in any accepted spelling, parses to that instant rounded half-up to ms", () => {
  fc.assert(
    fc.property(instant, offsetMinutes, spelling, (at, offset, how) => {
      const written = write(at, offset, how);
      fc.pre(written !== null);
      assert.equal(parseApiDateTime(written.text), written.expected, written.text);
    }),
    RUNS,
  );
});

test("an instant written to the millisecond or finer parses exactly, whatever the offset and spelling", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: YEAR_1, max: LAST }),
      offsetMinutes,
      fc.integer({ min: 3, max: 9 }),
      spelling,
      (ms, offset, digits, how) => {
        const written = write({ ms, nanos: 0 }, offset, { ...how, digits });
        fc.pre(written !== null);
        assert.equal(parseApiDateTime(written.text), ms, written.text);
      },
    ),
    RUNS,
  );
});

test("the output shape round-trips: format then parse gives the instant, parse then format the text", () => {
  assert.equal(formatApiDateTime(YEAR_1), "0001-01-01T00:00:00.000+0000");
  assert.equal(formatApiDateTime(LAST), "9999-12-31T23:59:59.999+0000");
  fc.assert(
    fc.property(fc.integer({ min: YEAR_1, max: LAST }), (time) => {
      const text = formatApiDateTime(time);
      assert.match(text, OUTPUT_SHAPE);
      assert.equal(parseApiDateTime(text), time);
      assert.equal(formatApiDateTime(parseApiDateTime(text) as number), text);
    }),
    RUNS,
  );
});

test("every real calendar date and time is accepted, at the instant the calendar arithmetic gives", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 9999 }),
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 1, max: 31 }),
      fc.integer({ min: 0, max: 23 }),
      fc.integer({ min: 0, max: 59 }),
      fc.integer({ min: 0, max: 59 }),
      (year, month, rawDay, hour, minute, second) => {
        const day = Math.min(rawDay, daysIn(year, month));
        const text = `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(second)}Z`;
        const expected =
          daysFromCivil(year, month, day) * 86_400_000 + ((hour * 60 + minute) * 60 + second) * 1000;
        assert.equal(parseApiDateTime(text), expected, text);
      },
    ),
    RUNS,
  );
});

/** A field that does not exist on the calendar or the clock (Feb 30, month 13, hour 24, second 60...). */
const impossibleFields = fc
  .record({
    year: fc.integer({ min: 1, max: 9999 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    broken: fc.constantFrom("month", "day", "hour", "minute", "second"),
    bad: fc.nat(),
  })
  .map((f) => {
    const fields = { ...f };
    if (f.broken === "month") fields.month = [0, 13, 99][f.bad % 3] as number;
    if (f.broken === "day")
      fields.day =
        f.bad % 2 === 0 ? 0 : daysIn(f.year, f.month) + 1 + (f.bad % (32 - daysIn(f.year, f.month)));
    if (f.broken === "hour") fields.hour = 24 + (f.bad % 76);
    if (f.broken === "minute") fields.minute = 60 + (f.bad % 40);
    if (f.broken === "second") fields.second = 60 + (f.bad % 40);
    return fields;
  });

test("impossible dates and times are rejected in every spelling (Feb 30, Feb 29 of a common year, hour 24, ...)", () => {
  fc.assert(
    fc.property(impossibleFields, spelling, offsetMinutes, (f, how, offset) => {
      const fraction = how.digits > 0 ? `.${"5".repeat(how.digits)}` : "";
      const text =
        `${pad(f.year, 4)}-${pad(f.month)}-${pad(f.day)}T${pad(f.hour)}:${pad(f.minute)}:${pad(f.second)}` +
        `${fraction}${offsetText(how.style === "Z" ? 0 : offset, how.style)}`;
      assert.equal(parseApiDateTime(text), null, text);
    }),
    RUNS,
  );
});

/** Ways to break a valid datetime's syntax; each must make it a 400, never another instant. */
const MUTATIONS: [string, (text: string) => string][] = [
  ["ten fraction digits", (t) => t.replace(/(:\d{2})(\.\d+)?(?=Z|[+-])/, "$1.1234567890")],
  ["a point without digits", (t) => t.replace(/(:\d{2})(\.\d+)?(?=Z|[+-])/, "$1.")],
  ["a comma as decimal sign", (t) => t.replace(/(:\d{2})(\.\d+)?(?=Z|[+-])/, "$1,5")],
  ["no seconds", (t) => t.replace(/(T\d{2}:\d{2}):\d{2}(\.\d+)?/, "$1")],
  ["no offset", (t) => t.replace(/(Z|[+-]\d{2}:?\d{2})$/, "")],
  ["hours-only offset", (t) => t.replace(/(Z|[+-]\d{2}:?\d{2})$/, "+01")],
  ["lower-case z", (t) => t.replace(/(Z|[+-]\d{2}:?\d{2})$/, "z")],
  ["lower-case t", (t) => t.replace("T", "t")],
  ["a space for T", (t) => t.replace("T", " ")],
  ["a leading space", (t) => ` ${t}`],
  ["a trailing space", (t) => `${t} `],
  ["offset over 18:00", (t) => t.replace(/(Z|[+-]\d{2}:?\d{2})$/, "+1801")],
  ["offset minutes over 59", (t) => t.replace(/(Z|[+-]\d{2}:?\d{2})$/, "-05:60")],
  ["a five-digit year", (t) => `1${t}`],
  ["a one-digit month", (t) => t.replace(/^(\d{4})-\d{2}/, "$1-6")],
  ["full-width digits", (t) => t.replace(/\d/, (d) => String.fromCharCode(0xff10 + Number(d)))],
];

test("a valid datetime with its syntax broken in any one way is rejected", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: YEAR_1 + 2 * 86_400_000, max: LAST - 2 * 86_400_000 }),
      offsetMinutes,
      spelling,
      fc.constantFrom(...MUTATIONS),
      (ms, offset, how, [what, mutate]) => {
        const written = write({ ms, nanos: 0 }, offset, how);
        fc.pre(written !== null);
        const broken = mutate(written.text);
        assert.notEqual(broken, written.text, `${what} did not change ${written.text}`);
        assert.equal(parseApiDateTime(broken), null, `${what}: ${broken}`);
      },
    ),
    RUNS,
  );
});

// ---- examples: the documented decisions, readable ----------------------------------------------

test("seconds without a fraction, and offsets Z, +hh:mm and +hhmm, as common clients write them", () => {
  const june = Date.UTC(2030, 5, 1);
  assert.equal(parseApiDateTime("2030-06-01T00:00:00Z"), june);
  assert.equal(parseApiDateTime("2030-06-01T02:00:00+02:00"), june);
  assert.equal(parseApiDateTime("2030-06-01T02:00:00+0200"), june);
  assert.equal(parseApiDateTime("2030-05-31T19:30:00-04:30"), june);
  assert.equal(parseApiDateTime("2030-06-01T00:00:00.000+0000"), june);
  assert.equal(parseApiDateTime("2030-06-01T00:00:00-00:00"), june);
});

test("1 to 9 fraction digits are rounded half-up to milliseconds", () => {
  const june = Date.UTC(2030, 5, 1);
  assert.equal(parseApiDateTime("2030-06-01T00:00:00.1Z"), june + 100);
  assert.equal(parseApiDateTime("2030-06-01T00:00:00.12Z"), june + 120);
  assert.equal(parseApiDateTime("2030-06-01T00:00:00.123456Z"), june + 123); // Python, Java micros
  assert.equal(parseApiDateTime("2030-06-01T00:00:00.123456789Z"), june + 123); // Go, Java nanos
  assert.equal(parseApiDateTime("2030-06-01T00:00:00.0004999Z"), june);
  assert.equal(parseApiDateTime("2030-06-01T00:00:00.0005Z"), june + 1, "exactly half rounds up");
  assert.equal(parseApiDateTime("2030-06-01T00:00:00.1235Z"), june + 124);
});

test("a fraction that rounds up carries into the next second, day and year; past 9999 it is rejected", () => {
  assert.equal(parseApiDateTime("2030-06-01T00:00:00.9995Z"), Date.UTC(2030, 5, 1, 0, 0, 1));
  assert.equal(parseApiDateTime("2030-12-31T23:59:59.9995Z"), Date.UTC(2031, 0, 1));
  assert.equal(parseApiDateTime("2028-02-28T23:59:59.99999+0000"), Date.UTC(2028, 1, 29));
  assert.equal(parseApiDateTime("2030-01-01T00:59:59.9995+01:00"), Date.UTC(2030, 0, 1));
  assert.equal(parseApiDateTime("9999-12-31T23:59:59.9994999Z"), LAST);
  assert.equal(parseApiDateTime("9999-12-31T23:59:59.9995Z"), null);
  assert.equal(parseApiDateTime("0000-12-31T23:59:59.9995Z"), YEAR_1);
});

test("formats instants as UTC with milliseconds and a +0000 offset", () => {
  assert.equal(formatApiDateTime(Date.UTC(2026, 0, 31, 13, 45, 0, 7)), "2026-01-31T13:45:00.007+0000");
  const yearFive = new Date(0);
  yearFive.setUTCFullYear(5, 1, 3);
  assert.equal(formatApiDateTime(yearFive.getTime()), "0005-02-03T00:00:00.000+0000");
});

test("times on a day already formatted are written as Date writes them, before 1970 too", () => {
  const byDate = (time: number) => `${new Date(time).toISOString().slice(0, 23)}+0000`;
  // Many times on few days, so most are written from a day formatted before.
  const days = fc.integer({ min: -719_162, max: 2_932_896 }).map((day) => day * 86_400_000);
  fc.assert(
    fc.property(
      fc.array(fc.tuple(days, fc.integer({ min: 0, max: 86_399_999 })), { minLength: 1, maxLength: 40 }),
      (times) => {
        for (const [day, ofDay] of times) {
          const time = Math.min(Math.max(day + ofDay, YEAR_1), LAST);
          assert.equal(formatApiDateTime(time), byDate(time));
          assert.equal(formatApiDateTime(time), byDate(time));
        }
      },
    ),
    RUNS,
  );
});

test("still rejects what is not a datetime or not a real instant", () => {
  for (const text of [
    "2026-01-31T13:45+0100", // no seconds
    "2026-01-31T13:45:00.+0100",
    "2026-01-31 13:45:00.000+0100",
    "2026-01-31T13:45:00.000", // no offset
    "2026-02-29T00:00:00Z", // not a leap year
    "2026-04-31T00:00:00Z",
    "2026-01-01T24:00:00Z",
    "2026-01-01T23:59:60Z", // no leap seconds
    "2026-01-01T00:00:00.000+2500",
    "0000-01-01T00:00:00.000+0100", // before year 1 in UTC
    "2026-01-31",
    "1767225600000",
    "",
  ]) {
    assert.equal(parseApiDateTime(text), null, text);
  }
  assert.equal(parseApiDateTime("2024-02-29T00:00:00Z"), Date.UTC(2024, 1, 29));
  assert.equal(parseApiDateTime("2000-02-29T00:00:00Z"), Date.UTC(2000, 1, 29));
  assert.equal(parseApiDateTime("1900-02-29T00:00:00Z"), null);
});
