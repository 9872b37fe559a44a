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

/** One bar: its label on the axis, its start in full for the tooltip, and its two stacked counts. */
export interface SeriesRow {
  label: string;
  title: string;
  allowed: number;
  refused: number;
}

const hourLabel = new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit" });
// The first hour and the first of each (local) day carry the date: 48 hours span two or three days.
const dayHourLabel = new Intl.DateTimeFormat(undefined, {
  day: "numeric",
  month: "short",
  hour: "numeric",
  minute: "2-digit",
});
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
      label = (day === previousDay ? hourLabel : dayHourLabel).format(start);
      previousDay = day;
    }
    const title =
      start === null ? bucket.start : period === "hours" ? hourTitle.format(start) : `${label} (UTC)`;
    return { label, title, allowed: bucket.allowed, refused: refusedTotal(bucket) };
  });
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
