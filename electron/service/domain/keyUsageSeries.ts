import { SERIES_DAYS, SERIES_HOURS } from "../../../shared/apiKeyRules.ts";
import { addCounts, hourOf, noCounts, type UsageCounts } from "./keyUsage.ts";

/**
 * A key's usage over time (the chart in its details): calls per hour over the last 48 hours and per
 * UTC day over the last 30 days, zero-filled, oldest first. Also the rules of how long the stored
 * hours and days are kept, so that what is stored stays bounded (the store prunes by them).
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** @internal Exported for tests. */
export { SERIES_DAYS, SERIES_HOURS };

/**
 * The UTC day (days since the epoch) the time falls in.
 * @internal Exported for tests.
 */
export function dayOf(time: number): number {
  return Math.floor(time / DAY_MS);
}

/** The UTC day an hour (hourOf) falls in: hours since the epoch start at a day's start. */
export function dayOfHour(hour: number): number {
  return Math.floor(hour / 24);
}

/** Stored hours at or before this one are out of every series at `now`: the store deletes them. */
export function lastPrunedHour(now: number): number {
  return hourOf(now) - SERIES_HOURS;
}

/** Stored days at or before this one are out of every series at `now`: the store deletes them. */
export function lastPrunedDay(now: number): number {
  return dayOf(now) - SERIES_DAYS;
}

/** Counts by hour and by day, as stored or still pending; missing buckets had no calls. */
export interface UsageByTime {
  hours: Map<number, UsageCounts>;
  days: Map<number, UsageCounts>;
}

interface UsageBucket extends UsageCounts {
  /** When the bucket starts, in ms since the epoch. */
  start: number;
}

export interface UsageSeries {
  /** SERIES_HOURS buckets, oldest first, the current hour last. */
  hours: UsageBucket[];
  /** SERIES_DAYS buckets, oldest first, the current UTC day last. */
  days: UsageBucket[];
}

export function emptyUsageByTime(): UsageByTime {
  return { hours: new Map(), days: new Map() };
}

/** Adds counts of one hour to both its hour and its day (in place: `into` is the caller's). */
export function addHourCounts(into: UsageByTime, hour: number, counts: UsageCounts): void {
  into.hours.set(hour, addCounts(into.hours.get(hour) ?? noCounts(), counts));
  const day = dayOfHour(hour);
  into.days.set(day, addCounts(into.days.get(day) ?? noCounts(), counts));
}

/** The series at `now` from what is known by time; buckets outside it are left out. */
export function usageSeriesOf(usage: UsageByTime, now: number): UsageSeries {
  const bucketsOf = (counts: Map<number, UsageCounts>, last: number, size: number, length: number) =>
    Array.from({ length }, (_, index) => {
      const unit = last - length + 1 + index;
      const { allowed, refused } = counts.get(unit) ?? noCounts();
      return { start: unit * size, allowed, refused: { ...refused } };
    });
  return {
    hours: bucketsOf(usage.hours, hourOf(now), HOUR_MS, SERIES_HOURS),
    days: bucketsOf(usage.days, dayOf(now), DAY_MS, SERIES_DAYS),
  };
}
