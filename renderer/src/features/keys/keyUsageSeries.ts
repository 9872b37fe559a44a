/**
 * A key's usage over time in words and chart rows, for the chart in its details: 48 hours by hour,
 * 30 days by UTC day, allowed and refused calls stacked. Pure: the service's buckets in, rows and
 * sentences out.
 */

import type { UsageBucketDto } from "../../../../shared/apiKeyRules.ts";
import { parseApiDateTime } from "../../../../shared/datetime.ts";
import { refusedTotal } from "./keyUsage.ts";

export type SeriesPeriod = "hours" | "days";

export const PERIOD_WORDS: Record<SeriesPeriod, string> = {
  hours: "the last 48 hours",
  days: "the last 30 days",
};

/**
 * One bar: its key (its start as the service sent it: unique, where hour labels repeat across the
 * two days), its label on the axis, its start in full for the tooltip, and its two stacked counts.
 */
export interface SeriesRow {
  key: string;
  label: string;
  title: string;
  allowed: number;
  refused: number;
}

// Short, as an axis of 48 bars in a drawer needs: "6 AM" (or "06" where the day has 24 hours).
const hourLabel = new Intl.DateTimeFormat(undefined, { hour: "numeric" });
// The first hour and the first of each (local) day are labelled with the date: 48 hours span two
// or three days, and that bar's tick marks where a day begins.
const localDayLabel = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short" });
const localDay = (time: number) => new Date(time).toDateString();
const hourTitle = new Intl.DateTimeFormat(undefined, {
  weekday: "short",
  day: "numeric",
  month: "short",
  hour: "2-digit",
  minute: "2-digit",
});
// Days are UTC days (the service counts them so): labelled in UTC, or a day would show as the one before.
const dayLabel = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", timeZone: "UTC" });

/** The chart's rows, oldest first as the service answers them; an unreadable start labels "?". */
export function seriesRows(buckets: readonly UsageBucketDto[], period: SeriesPeriod): SeriesRow[] {
  let previousDay: string | null = null;
  return buckets.map((bucket) => {
    const start = parseApiDateTime(bucket.start);
    let label = "?";
    if (start !== null && period === "days") label = dayLabel.format(start);
    if (start !== null && period === "hours") {
      const day = localDay(start);
      label = (day === previousDay ? hourLabel : localDayLabel).format(start);
      previousDay = day;
    }
    const title =
      start === null ? bucket.start : period === "hours" ? hourTitle.format(start) : `${label} (UTC)`;
    return { key: bucket.start, label, title, allowed: bucket.allowed, refused: refusedTotal(bucket) };
  });
}

/** Bars between two ticks at least: a date and an hour label side by side in a drawer-wide chart. */
const TICK_GAP = 5;
/**
 * Bars between the first bar's date and the next day's date at least: two dates are wider than a
 * date and an hour (at 800 px six bars left "Nov 27" and "Nov 28" overlapping by 4 px).
 */
const DATES_GAP = 8;
/** Hours of the day an hour tick may fall on (local): every six hours reads as a clock. */
const TICK_HOURS = 6;

/**
 * The keys of the bars the 48-hour axis labels, oldest first: every day change first (the axis must
 * show where a day begins, which thinning by the chart skipped), then the first bar unless a day
 * begins right after it, then every sixth hour not too close to a label already chosen. Days: none
 * chosen (undefined), their labels are unique and the chart thins them itself.
 */
export function seriesTicks(rows: readonly SeriesRow[], period: SeriesPeriod): string[] | undefined {
  if (period === "days") return undefined;
  const starts = rows.map((row) => parseApiDateTime(row.key));
  const dayStart = (index: number) =>
    index > 0 &&
    starts[index] !== null &&
    starts[index - 1] !== null &&
    localDay(starts[index] as number) !== localDay(starts[index - 1] as number);
  const chosen: number[] = [];
  const free = (index: number, gap = TICK_GAP) => chosen.every((other) => Math.abs(other - index) >= gap);
  rows.forEach((_, index) => {
    if (dayStart(index)) chosen.push(index);
  });
  if (rows.length > 0 && free(0, DATES_GAP)) chosen.push(0);
  rows.forEach((_, index) => {
    const start = starts[index];
    if (
      start !== null &&
      start !== undefined &&
      new Date(start).getHours() % TICK_HOURS === 0 &&
      // The first bar is labelled with its date, however it is chosen.
      free(index, index === 0 ? DATES_GAP : TICK_GAP)
    ) {
      chosen.push(index);
    }
  });
  return chosen.sort((a, b) => a - b).map((index) => rows[index]?.key as string);
}

export function seriesTotals(buckets: readonly UsageBucketDto[]): { allowed: number; refused: number } {
  let allowed = 0;
  let refused = 0;
  for (const bucket of buckets) {
    allowed += bucket.allowed;
    refused += refusedTotal(bucket);
  }
  return { allowed, refused };
}

/** "312 allowed, 4 refused in the last 48 hours", or "No calls in the last 48 hours". */
export function seriesSummary(buckets: readonly UsageBucketDto[], period: SeriesPeriod): string {
  const { allowed, refused } = seriesTotals(buckets);
  if (allowed + refused === 0) return `No calls in ${PERIOD_WORDS[period]}`;
  return `${allowed.toLocaleString()} allowed, ${refused.toLocaleString()} refused in ${PERIOD_WORDS[period]}`;
}
