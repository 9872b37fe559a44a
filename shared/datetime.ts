/**
 * The API's datetime format. Output is always UTC with millisecond precision
 * (`2026-01-31T13:45:00.000+0000`); input also accepts other offsets written as
 * `+hhmm`, `+hh:mm` or `Z`. Anything else is rejected, so a typo never becomes a
 * silently different instant.
 */

const INPUT_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})(Z|([+-])(\d{2}):?(\d{2}))$/;

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

export const DATETIME_FORMAT_HINT = "yyyy-MM-ddTHH:mm:ss.SSS+hhmm, for example 2026-01-31T13:45:00.000+0100";

function daysInMonth(year: number, month: number): number {
  return new Date(utcTime(year, month, 0)).getUTCDate();
}

/** Parses an API datetime to epoch milliseconds, or returns null when it is not one. */
export function parseApiDateTime(text: string): number | null {
  const m = INPUT_PATTERN.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second, milli] = m.slice(1, 8).map(Number) as [
    number,
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
  const time = utcTime(year, month - 1, day, hour, minute, second, milli) - offsetMinutes * 60_000;
  if (time < MIN_TIME || time > MAX_TIME) return null;
  return time;
}

const pad = (n: number, width: number): string => String(n).padStart(width, "0");

/** Formats epoch milliseconds as the API's UTC output shape. */
export function formatApiDateTime(time: number): string {
  const d = new Date(time);
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}` +
    `T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}` +
    `.${pad(d.getUTCMilliseconds(), 3)}+0000`
  );
}
