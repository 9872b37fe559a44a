import type { RefusalReason } from "../domain/keyAuthorization.ts";
import { noCounts, type PendingUsage, type StoredUsage, type UsageCounts } from "../domain/keyUsage.ts";
import { emptyUsageByTime, type UsageByTime } from "../domain/keyUsageSeries.ts";
import { REFUSAL_COLUMNS as COLUMNS } from "./keyUsageSchema.ts";

// Key usage: rows and codecs the same on SQLite (keyUsageStore.ts) and PostgreSQL
// (postgres/postgresUsage.ts). No SQL dialect and no connection here, so neither store imports the
// other's code.

export type CountRow = Record<string, number>;
export interface TotalRow extends Record<string, number | string | null> {
  last_used_at: number | null;
  last_used_from: string | null;
  last_refused_at: number | null;
  last_refused_from: string | null;
}

/** Counts from a row (or object) keyed by column name (COUNT_COLUMNS); 0 for what it lacks. */
export function countsOf(row: Record<string, unknown> | undefined): UsageCounts {
  const counts = noCounts();
  if (!row) return counts;
  counts.allowed = Number(row.allowed ?? 0);
  for (const [reason, column] of Object.entries(COLUMNS)) {
    counts.refused[reason as RefusalReason] = Number(row[column] ?? 0);
  }
  return counts;
}

/** A key's usage from its key_usage row and the sums of its hours in the day (either database). */
export function storedUsageOf(
  row: TotalRow | undefined,
  day: Record<string, unknown> | undefined,
): StoredUsage {
  // 0 is "never" (see write).
  const usedAt = row?.last_used_at || null;
  const refusedAt = row?.last_refused_at || null;
  return {
    total: countsOf(row),
    last24Hours: countsOf(day),
    lastUsedAt: usedAt,
    lastUsedFrom: usedAt === null ? null : (row?.last_used_from ?? null),
    lastRefusedAt: refusedAt,
    lastRefusedFrom: refusedAt === null ? null : (row?.last_refused_from ?? null),
  };
}

/** Stored rows of hours and days (`hour` or `day`, then counts) as counts by time (either database). */
export function usageByTimeOf(
  hours: readonly Record<string, unknown>[],
  days: readonly Record<string, unknown>[],
): UsageByTime {
  const byTime = emptyUsageByTime();
  for (const row of hours) byTime.hours.set(Number(row.hour), countsOf(row));
  for (const row of days) byTime.days.set(Number(row.day), countsOf(row));
  return byTime;
}

/** The batch's counts by column name (REFUSAL_COLUMNS). */
export function countParams(usage: PendingUsage): Record<string, number> {
  const params: Record<string, number> = { allowed: usage.allowed };
  for (const [reason, column] of Object.entries(COLUMNS))
    params[column] = usage.refused[reason as RefusalReason];
  return params;
}
