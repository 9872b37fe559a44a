import type { RefusalReason } from "../domain/keyAuthorization.ts";
import { dayStartHour, noCounts, type PendingUsage, type UsageCounts } from "../domain/keyUsage.ts";
import {
  dayOfHour,
  emptyUsageByTime,
  lastPrunedDay,
  lastPrunedHour,
  type UsageByTime,
} from "../domain/keyUsageSeries.ts";
import type { Db } from "./database.ts";
import { REFUSAL_COLUMNS as COLUMNS, COUNT_COLUMNS } from "./keyUsageSchema.ts";

/**
 * Usage of keys in SQLite: one row per key with its totals and last calls (key_usage), one per
 * key and hour with that hour's counts (key_usage_hours), kept for the last 48 hours, and one per
 * key and UTC day (key_usage_days), kept for the last 30 days (domain/keyUsageSeries.ts). Written
 * in batches by the UsageRecorder, never on the request's path.
 */

/** A key's stored usage: what the recorder has written so far. */
export interface StoredUsage {
  total: UsageCounts;
  last24Hours: UsageCounts;
  lastUsedAt: number | null;
  lastUsedFrom: string | null;
  lastRefusedAt: number | null;
  lastRefusedFrom: string | null;
}

type CountRow = Record<string, number>;
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

const added = COUNT_COLUMNS.map((column) => `${column} = ${column} + excluded.${column}`).join(", ");
const values = COUNT_COLUMNS.map((column) => `@${column}`).join(", ");

export class KeyUsageStore {
  readonly #db: Db;
  readonly #addTotal;
  readonly #addHour;
  readonly #addDay;
  readonly #pruneHours;
  readonly #pruneDays;
  readonly #total;
  readonly #day;
  readonly #hourRows;
  readonly #dayRows;

  constructor(db: Db) {
    this.#db = db;
    // A key that is gone by the time its batch is written (never: keys are not deleted) adds nothing.
    this.#addTotal = db.prepare(
      `INSERT INTO key_usage (api_key_id, ${COUNT_COLUMNS.join(", ")}, last_used_at, last_used_from,
         last_refused_at, last_refused_from)
       SELECT id, ${values}, @lastUsedAt, @lastUsedFrom, @lastRefusedAt, @lastRefusedFrom
       FROM api_keys WHERE key = @key
       ON CONFLICT (api_key_id) DO UPDATE SET ${added},
         last_used_from = CASE WHEN excluded.last_used_at >= coalesce(last_used_at, 0)
           THEN excluded.last_used_from ELSE last_used_from END,
         last_used_at = max(coalesce(last_used_at, 0), coalesce(excluded.last_used_at, 0)),
         last_refused_from = CASE WHEN excluded.last_refused_at >= coalesce(last_refused_at, 0)
           THEN excluded.last_refused_from ELSE last_refused_from END,
         last_refused_at = max(coalesce(last_refused_at, 0), coalesce(excluded.last_refused_at, 0))`,
    );
    this.#addHour = db.prepare(
      `INSERT INTO key_usage_hours (api_key_id, hour, ${COUNT_COLUMNS.join(", ")})
       SELECT id, @hour, ${values} FROM api_keys WHERE key = @key
       ON CONFLICT (api_key_id, hour) DO UPDATE SET ${added}`,
    );
    this.#addDay = db.prepare(
      `INSERT INTO key_usage_days (api_key_id, day, ${COUNT_COLUMNS.join(", ")})
       SELECT id, @day, ${values} FROM api_keys WHERE key = @key
       ON CONFLICT (api_key_id, day) DO UPDATE SET ${added}`,
    );
    this.#pruneHours = db.prepare("DELETE FROM key_usage_hours WHERE hour <= ?");
    this.#pruneDays = db.prepare("DELETE FROM key_usage_days WHERE day <= ?");
    this.#total = db.prepare<[number], TotalRow>("SELECT * FROM key_usage WHERE api_key_id = ?");
    this.#hourRows = db.prepare<[number, number], CountRow>(
      "SELECT * FROM key_usage_hours WHERE api_key_id = ? AND hour > ?",
    );
    this.#dayRows = db.prepare<[number, number], CountRow>(
      "SELECT * FROM key_usage_days WHERE api_key_id = ? AND day > ?",
    );
    this.#day = db.prepare<[number, number], CountRow>(
      `SELECT ${COUNT_COLUMNS.map((column) => `sum(${column}) AS ${column}`).join(", ")}
       FROM key_usage_hours WHERE api_key_id = ? AND hour > ?`,
    );
  }

  /**
   * Adds a batch, keyed by the keys' `key` ids, to the totals, the hours and the days in one
   * transaction; hours and days out of every series go (lastPrunedHour, lastPrunedDay).
   */
  write(batch: ReadonlyMap<string, PendingUsage>, now: number): void {
    this.#db.transaction(() => {
      for (const [key, usage] of batch) {
        const counts = countParams(usage);
        this.#addTotal.run({
          key,
          ...counts,
          // 0 for "not in this batch": the max() and CASE above keep the stored value then.
          lastUsedAt: usage.lastUsedAt ?? 0,
          lastUsedFrom: usage.lastUsedFrom,
          lastRefusedAt: usage.lastRefusedAt ?? 0,
          lastRefusedFrom: usage.lastRefusedFrom,
        });
        this.#addHour.run({ key, hour: usage.hour, ...counts });
        this.#addDay.run({ key, day: dayOfHour(usage.hour), ...counts });
      }
      this.#pruneHours.run(lastPrunedHour(now));
      this.#pruneDays.run(lastPrunedDay(now));
    })();
  }

  /** The stored usage of the key with this row id, counting the day's hours as of `now`. */
  read(apiKeyId: number, now: number): StoredUsage {
    return storedUsageOf(this.#total.get(apiKeyId), this.#day.get(apiKeyId, dayStartHour(now)));
  }

  /** The stored hours and days of the key with this row id in its series at `now`. */
  series(apiKeyId: number, now: number): UsageByTime {
    return usageByTimeOf(
      this.#hourRows.all(apiKeyId, lastPrunedHour(now)),
      this.#dayRows.all(apiKeyId, lastPrunedDay(now)),
    );
  }
}
