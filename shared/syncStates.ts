/** The sync's fields and states, a leaf both sync.ts and syncAnswers.ts import (no cycle). */

/** The fields a sync compares and merges, one by one. */
export const SYNCED_FIELDS = [
  "name",
  "allowedIPs",
  "permissions",
  "validFrom",
  "validTo",
  "enabled",
] as const;
export type SyncedField = (typeof SYNCED_FIELDS)[number];

/**
 * - `idle`: nothing running; the next run is due at nextRunAt.
 * - `running`: a run is under way (see progress).
 * - `backing-off`: the last run failed (network, 5xx, 429); retried at nextRunAt.
 * - `paused`: the remote refused the credentials (401), or the user paused the link;
 *   nothing runs until credentials are given again or the link is resumed.
 */
export const SYNC_LINK_STATES = ["idle", "running", "backing-off", "paused"] as const;

export const SYNC_KEY_STATES = [
  "synced",
  "pending",
  "conflict",
  "remote-missing",
  "failed",
  "local-only",
] as const;
export type SyncKeyState = (typeof SYNC_KEY_STATES)[number];
