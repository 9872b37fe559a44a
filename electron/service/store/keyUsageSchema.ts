import type { RefusalReason } from "../domain/keyAuthorization.ts";

/** The tables of keys' usage (keyUsageStore.ts), migrations in database.ts. */

export const REFUSAL_COLUMNS: Record<RefusalReason, string> = {
  disabled: "refused_disabled",
  "not-yet-valid": "refused_not_yet_valid",
  expired: "refused_expired",
  "address-not-allowed": "refused_address",
  "tfa-only": "refused_tfa_only",
};
export const COUNT_COLUMNS = ["allowed", ...Object.values(REFUSAL_COLUMNS)];

/** The schema, applied as one migration in database.ts: written out, as a migration never changes. */
export const KEY_USAGE_SCHEMA = `
  CREATE TABLE key_usage (
    api_key_id INTEGER PRIMARY KEY REFERENCES api_keys(id),
    allowed INTEGER NOT NULL DEFAULT 0,
    refused_disabled INTEGER NOT NULL DEFAULT 0,
    refused_not_yet_valid INTEGER NOT NULL DEFAULT 0,
    refused_expired INTEGER NOT NULL DEFAULT 0,
    refused_address INTEGER NOT NULL DEFAULT 0,
    refused_tfa_only INTEGER NOT NULL DEFAULT 0,
    last_used_at INTEGER,
    last_used_from TEXT,
    last_refused_at INTEGER,
    last_refused_from TEXT
  ) STRICT;
  CREATE TABLE key_usage_hours (
    api_key_id INTEGER NOT NULL REFERENCES api_keys(id),
    hour INTEGER NOT NULL,
    allowed INTEGER NOT NULL DEFAULT 0,
    refused_disabled INTEGER NOT NULL DEFAULT 0,
    refused_not_yet_valid INTEGER NOT NULL DEFAULT 0,
    refused_expired INTEGER NOT NULL DEFAULT 0,
    refused_address INTEGER NOT NULL DEFAULT 0,
    refused_tfa_only INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (api_key_id, hour)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX key_usage_hours_by_hour ON key_usage_hours(hour);
`;

/**
 * Counts per key and UTC day (days since the epoch) for the 30-day series, and hours kept 48 hours
 * from then on (the pruning is the store's). The days start from the hours already stored, so the
 * last day's counts are not lost by the upgrade. Written out, as a migration never changes.
 */
export const KEY_USAGE_DAYS_SCHEMA = `
  CREATE TABLE key_usage_days (
    api_key_id INTEGER NOT NULL REFERENCES api_keys(id),
    day INTEGER NOT NULL,
    allowed INTEGER NOT NULL DEFAULT 0,
    refused_disabled INTEGER NOT NULL DEFAULT 0,
    refused_not_yet_valid INTEGER NOT NULL DEFAULT 0,
    refused_expired INTEGER NOT NULL DEFAULT 0,
    refused_address INTEGER NOT NULL DEFAULT 0,
    refused_tfa_only INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (api_key_id, day)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX key_usage_days_by_day ON key_usage_days(day);
  INSERT INTO key_usage_days (api_key_id, day, allowed, refused_disabled, refused_not_yet_valid,
      refused_expired, refused_address, refused_tfa_only)
    SELECT api_key_id, hour / 24, sum(allowed), sum(refused_disabled), sum(refused_not_yet_valid),
      sum(refused_expired), sum(refused_address), sum(refused_tfa_only)
    FROM key_usage_hours GROUP BY api_key_id, hour / 24;
`;
