// How the console writes times, one convention for every view: local time with its zone
// ("25 Nov 2026, 17:27:29 CET"), and relative where that helps ("in 5 days", "2 min ago") with
// the local time on hover. Plain functions; the zone and locale are parameters for the tests.

export interface TimeFormatOptions {
  /** An IANA zone; the system's when absent. */
  timeZone?: string;
  /** A BCP 47 locale; the system's when absent. */
  locale?: string;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function dateTimeFormat(options: TimeFormatOptions): Intl.DateTimeFormat {
  const id = `${options.locale ?? ""}|${options.timeZone ?? ""}`;
  let format = formats.get(id);
  if (!format) {
    format = new Intl.DateTimeFormat(options.locale, {
      year: "numeric",
      month: "short",
      day: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      timeZoneName: "short",
      ...(options.timeZone !== undefined && { timeZone: options.timeZone }),
    });
    formats.set(id, format);
  }
  return format;
}

const toTime = (date: Date | number) => (typeof date === "number" ? date : date.getTime());

/** The local date and time with the zone's short name, e.g. "Nov 25, 2026, 05:27:29 PM GMT+1". */
export function formatLocal(date: Date | number, options: TimeFormatOptions = {}): string {
  return dateTimeFormat(options).format(toTime(date));
}

/** The short name of the zone at that instant ("CET", "GMT+1", "UTC"), for a column's header. */
export function zoneName(date: Date | number, options: TimeFormatOptions = {}): string {
  return (
    dateTimeFormat(options)
      .formatToParts(toTime(date))
      .find((part) => part.type === "timeZoneName")?.value ?? ""
  );
}

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// Each unit is used up to where its rounded count would be the next unit's ("60 min", "24 h",
// "12 months"): a key retiring a few seconds short of a day reads "in 1 day" in one view as in
// another whose clock is a few seconds behind, not "in 24 h" here and "in 1 day" there.
function amount(seconds: number): string {
  if (seconds < MINUTE) return `${seconds} s`;
  if (seconds < HOUR - MINUTE / 2) return `${Math.round(seconds / MINUTE)} min`;
  if (seconds < DAY - HOUR / 2) return `${Math.round(seconds / HOUR)} h`;
  const days = Math.round(seconds / DAY);
  if (days < 60) return days === 1 ? "1 day" : `${days} days`;
  if (days < 345) return `${Math.round(days / 30)} months`;
  const years = Math.round(days / 365);
  return years === 1 ? "1 year" : `${years} years`;
}

/** `date` seen from `now`: "just now", "in 5 days", "2 min ago", "3 h ago". */
export function formatRelative(date: Date | number, now: Date | number): string {
  const seconds = Math.round((toTime(date) - toTime(now)) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 5) return "just now";
  return seconds < 0 ? `${amount(abs)} ago` : `in ${amount(abs)}`;
}

/**
 * When something happened (created, last used), seen from `now`: never "in 55 s". A time a little
 * ahead of `now` (a view's clock ticks once a minute; the service's clock may run ahead) is "just now".
 */
export function formatPast(date: Date | number, now: Date | number): string {
  return formatRelative(Math.min(toTime(date), toTime(now)), now);
}

const dayAndTimeFormats = new Map<string, [Intl.DateTimeFormat, Intl.DateTimeFormat, Intl.DateTimeFormat]>();

/**
 * A local time for a column whose header names the zone, as two short lines: the day ("25 Nov",
 * with the year when it is not `now`'s) and the time to the second ("16:27:29"). Always with the
 * day: an inbox left open over midnight must not show yesterday's 23:59 as if it were today's.
 */
export function localDayAndTime(
  date: Date | number,
  now: Date | number,
  options: TimeFormatOptions = {},
): { day: string; time: string } {
  const id = `${options.locale ?? ""}|${options.timeZone ?? ""}`;
  let found = dayAndTimeFormats.get(id);
  if (!found) {
    const zone = options.timeZone !== undefined ? { timeZone: options.timeZone } : {};
    found = [
      new Intl.DateTimeFormat(options.locale, { year: "numeric", ...zone }),
      new Intl.DateTimeFormat(options.locale, { month: "short", day: "numeric", ...zone }),
      new Intl.DateTimeFormat(options.locale, {
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
        ...zone,
      }),
    ];
    dayAndTimeFormats.set(id, found);
  }
  const [year, day, time] = found;
  const at = toTime(date);
  const sameYear = year.format(at) === year.format(toTime(now));
  return { day: sameYear ? day.format(at) : `${day.format(at)} ${year.format(at)}`, time: time.format(at) };
}
