import { dayStartHour, type PendingUsage, type StoredUsage } from "../domain/keyUsage.ts";
import { dayOfHour, lastPrunedDay, lastPrunedHour, type UsageByTime } from "../domain/keyUsageSeries.ts";
import type { Db } from "./database.ts";
import { type CountRow, countParams, storedUsageOf, type TotalRow, usageByTimeOf } from "./keyUsageRows.ts";
import { COUNT_COLUMNS } from "./keyUsageSchema.ts";

/**
 * Usage of keys in SQLite: one row per key with its totals and last calls (key_usage), one per
 * key and hour with that hour's counts (key_usage_hours), kept for the last 48 hours, and one per
 * key and UTC day (key_usage_days), kept for the last 30 days (domain/keyUsageSeries.ts). Written
 * in batches by the UsageRecorder, never on the request's path.
 */

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
