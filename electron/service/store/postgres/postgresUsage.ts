import { dayStartHour } from "../../domain/keyUsage.ts";
import { dayOfHour, lastPrunedDay, lastPrunedHour } from "../../domain/keyUsageSeries.ts";
import { countParams, storedUsageOf, type TotalRow, usageByTimeOf } from "../keyUsageRows.ts";
import { COUNT_COLUMNS } from "../keyUsageSchema.ts";
import type { UsageWrites } from "../store.ts";
import type { Sql } from "./sql.ts";

const COUNTS = COUNT_COLUMNS.join(", ");
const added = (table: string) =>
  COUNT_COLUMNS.map((column) => `${column} = ${table}.${column} + excluded.${column}`).join(", ");
/** The batch's count columns, one array parameter each, from $first on. */
const countArrays = (first: number) =>
  COUNT_COLUMNS.map((_, index) => `$${first + index}::bigint[]`).join(", ");
const afterCounts = 2 + COUNT_COLUMNS.length;

/**
 * A batch adds to what is stored (`n = n + excluded.n`), so the batches of several replicas add
 * up. The last call's time and address are kept as on SQLite (keyUsageStore.ts): 0 for "not in
 * this batch", the later one wins. Rows are written in key order, so two replicas' batches lock
 * them in the same order. One statement per table for the whole batch (arrays, unnest).
 */
const ADD_TOTALS = `
  INSERT INTO key_usage (api_key_id, ${COUNTS}, last_used_at, last_used_from, last_refused_at, last_refused_from)
  SELECT k.id, ${COUNT_COLUMNS.map((column) => `b.${column}`).join(", ")},
    b.last_used_at, b.last_used_from, b.last_refused_at, b.last_refused_from
  FROM unnest($1::text[], ${countArrays(2)}, $${afterCounts}::bigint[], $${afterCounts + 1}::text[],
    $${afterCounts + 2}::bigint[], $${afterCounts + 3}::text[])
    WITH ORDINALITY AS b(key, ${COUNTS}, last_used_at, last_used_from, last_refused_at, last_refused_from, n)
  JOIN api_keys k ON k.key = b.key
  ORDER BY b.n
  ON CONFLICT (api_key_id) DO UPDATE SET ${added("key_usage")},
    last_used_from = CASE WHEN excluded.last_used_at >= coalesce(key_usage.last_used_at, 0)
      THEN excluded.last_used_from ELSE key_usage.last_used_from END,
    last_used_at = greatest(coalesce(key_usage.last_used_at, 0), coalesce(excluded.last_used_at, 0)),
    last_refused_from = CASE WHEN excluded.last_refused_at >= coalesce(key_usage.last_refused_at, 0)
      THEN excluded.last_refused_from ELSE key_usage.last_refused_from END,
    last_refused_at = greatest(coalesce(key_usage.last_refused_at, 0), coalesce(excluded.last_refused_at, 0))`;

/** Adds a batch's counts to one period's rows (`key_usage_hours` by hour, `key_usage_days` by day). */
const addToPeriods = (table: string, period: string) => `
  INSERT INTO ${table} (api_key_id, ${period}, ${COUNTS})
  SELECT k.id, b.${period}, ${COUNT_COLUMNS.map((column) => `b.${column}`).join(", ")}
  FROM unnest($1::text[], ${countArrays(2)}, $${afterCounts}::bigint[])
    WITH ORDINALITY AS b(key, ${COUNTS}, ${period}, n)
  JOIN api_keys k ON k.key = b.key
  ORDER BY b.n
  ON CONFLICT (api_key_id, ${period}) DO UPDATE SET ${added(table)}`;
const ADD_HOURS = addToPeriods("key_usage_hours", "hour");
const ADD_DAYS = addToPeriods("key_usage_days", "day");

const DAY = `SELECT ${COUNT_COLUMNS.map((column) => `sum(${column})::bigint AS ${column}`).join(", ")}
  FROM key_usage_hours WHERE api_key_id = $1 AND hour > $2`;

export function postgresUsage(sql: Sql): UsageWrites {
  return {
    async read(apiKeyId, now) {
      const [total] = await sql.rows<TotalRow>("SELECT * FROM key_usage WHERE api_key_id = $1", [apiKeyId]);
      const [day] = await sql.rows<Record<string, unknown>>(DAY, [apiKeyId, dayStartHour(now)]);
      return storedUsageOf(total, day);
    },
    async series(apiKeyId, now) {
      const hours = await sql.rows<Record<string, unknown>>(
        `SELECT hour, ${COUNTS} FROM key_usage_hours WHERE api_key_id = $1 AND hour > $2`,
        [apiKeyId, lastPrunedHour(now)],
      );
      const days = await sql.rows<Record<string, unknown>>(
        `SELECT day, ${COUNTS} FROM key_usage_days WHERE api_key_id = $1 AND day > $2`,
        [apiKeyId, lastPrunedDay(now)],
      );
      return usageByTimeOf(hours, days);
    },
    async write(batch, now) {
      const entries = [...batch].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      if (entries.length > 0) {
        const keys = entries.map(([key]) => key);
        const perKey = entries.map(([, usage]) => countParams(usage));
        const counts = COUNT_COLUMNS.map((column) => perKey.map((params) => params[column]));
        await sql.count(ADD_TOTALS, [
          keys,
          ...counts,
          entries.map(([, usage]) => usage.lastUsedAt ?? 0),
          entries.map(([, usage]) => usage.lastUsedFrom),
          entries.map(([, usage]) => usage.lastRefusedAt ?? 0),
          entries.map(([, usage]) => usage.lastRefusedFrom),
        ]);
        await sql.count(ADD_HOURS, [keys, ...counts, entries.map(([, usage]) => usage.hour)]);
        await sql.count(ADD_DAYS, [keys, ...counts, entries.map(([, usage]) => dayOfHour(usage.hour))]);
      }
      await sql.count("DELETE FROM key_usage_hours WHERE hour <= $1", [lastPrunedHour(now)]);
      await sql.count("DELETE FROM key_usage_days WHERE day <= $1", [lastPrunedDay(now)]);
    },
  };
}
