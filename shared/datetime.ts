/**
 * The API's datetime format. Output is always UTC with millisecond precision
 * (`2026-01-31T13:45:00.000+0000`). Input is the spec's shape and the spellings of the same
 * instant that common clients write (JavaScript's toISOString, Python's isoformat with a time
 * zone, Java's Instant.toString, Go's RFC 3339 and RFC 3339 nano):
 *
 * - seconds are required; the fraction is optional and has 1 to 9 digits. It is rounded to
 *   milliseconds half-up (towards the later instant: `.0005` becomes `.001`), carrying into the
 *   next second, minute, day or year as the calendar does (`23:59:59.9995` is the next day's
 *   `00:00:00.000`);
 * - the offset is `Z`, `+hhmm` or `+hh:mm` (or `-`), at most 18:00;
 * - the instant, after rounding, lies in years 0001 to 9999 in UTC.
 *
 * Anything else is rejected (no date-only, no missing offset, no leap second, no `24:00`), so a typo
 * never becomes a silently different instant.
 */

/** The accepted syntax; the calendar and range rules are checked after it matches. */
export const DATETIME_INPUT_PATTERN = String.raw`^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|([+-])(\d{2}):?(\d{2}))$`;
const INPUT_PATTERN = new RegExp(DATETIME_INPUT_PATTERN);

/** Offsets beyond ±18:00 do not exist in any zone database (Java's ZoneOffset has the same bound). */
const MAX_OFFSET_MINUTES = 18 * 60;
/** Date.UTC maps years 0–99 to 1900–1999, so instants are built with setUTCFullYear instead. */
function utcTime(
  year: number,
  monthIndex: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
  milli = 0,
): number {
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  date.setUTCHours(hour, minute, second, milli);
  return date.getTime();
}

const MIN_TIME = utcTime(1, 0, 1);
const MAX_TIME = utcTime(9999, 11, 31, 23, 59, 59, 999);

export const DATETIME_FORMAT_HINT =
  "yyyy-MM-ddTHH:mm:ss.SSS+hhmm (fraction optional, 1 to 9 digits; offset +hhmm, +hh:mm or Z), for example 2026-01-31T13:45:00.000+0100 or 2026-01-31T12:45:00Z";

function daysInMonth(year: number, month: number): number {
  return new Date(utcTime(year, month, 0)).getUTCDate();
}

/**
 * Milliseconds of a fraction of a second (digits after the point), rounded half-up; 1000 when it
 * rounds up to the next second. Digit arithmetic, not floating point: `.0005` must round up exactly.
 */
function fractionMillis(digits: string | undefined): number {
  if (digits === undefined) return 0;
  const padded = digits.padEnd(4, "0");
  return Number(padded.slice(0, 3)) + (padded.charCodeAt(3) >= "5".charCodeAt(0) ? 1 : 0);
}

/** Parses an API datetime to epoch milliseconds, or returns null when it is not one. */
export function parseApiDateTime(text: string): number | null {
  const m = INPUT_PATTERN.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes = 0;
  if (m[8] !== "Z") {
    const offHours = Number(m[10]);
    const offMinutes = Number(m[11]);
    if (offMinutes > 59) return null;
    offsetMinutes = (offHours * 60 + offMinutes) * (m[9] === "-" ? -1 : 1);
    if (Math.abs(offsetMinutes) > MAX_OFFSET_MINUTES) return null;
  }
  // A rounded-up 1000 ms is carried by the calendar arithmetic of Date itself.
  const local = utcTime(year, month - 1, day, hour, minute, second, fractionMillis(m[7]));
  const time = local - offsetMinutes * 60_000;
  if (time < MIN_TIME || time > MAX_TIME) return null;
  return time;
}

const pad = (n: number, width: number): string => String(n).padStart(width, "0");

const DAY_MS = 86_400_000;
const TWO_DIGITS = Array.from({ length: 60 }, (_, n) => pad(n, 2));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => pad(n, 3));
/** "YYYY-MM-DDT" of UTC day starts seen lately: the keys of a list fall on few days. */
const dayPrefixes = new Map<number, string>();
const MAX_DAY_PREFIXES = 4096;

/**
 * Formats epoch milliseconds as the API's UTC output shape. A list of a million keys formats two
 * million times: the date part is formatted once per day, the time of day from the remainder.
 */
export function formatApiDateTime(time: number): string {
  if (!Number.isInteger(time) || time < MIN_TIME || time > MAX_TIME) return formatByParts(time);
  const ofDay = ((time % DAY_MS) + DAY_MS) % DAY_MS;
  const day = time - ofDay;
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    if (dayPrefixes.size >= MAX_DAY_PREFIXES) dayPrefixes.clear();
    prefix = formatByParts(day).slice(0, 11);
    dayPrefixes.set(day, prefix);
  }
  const seconds = Math.floor(ofDay / 1000);
  return (
    `${prefix}${TWO_DIGITS[Math.floor(seconds / 3600)]}:${TWO_DIGITS[Math.floor(seconds / 60) % 60]}` +
    `:${TWO_DIGITS[seconds % 60]}.${THREE_DIGITS[ofDay % 1000]}+0000`
  );
}

function formatByParts(time: number): string {
  const d = new Date(time);
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}` +
    `T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}` +
    `.${pad(d.getUTCMilliseconds(), 3)}+0000`
  );
}
