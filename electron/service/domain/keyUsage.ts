import type { RefusalReason } from "./keyAuthorization.ts";

/**
 * How a key is used: App-authorized calls allowed and refused (by the rule that refused them),
 * since it was first recorded and over the last 24 hours, and when and from where it was last
 * used or last refused. Plain data and the rules that combine it; the recorder and the store are
 * the I/O around it.
 */

export const REFUSAL_REASONS: readonly RefusalReason[] = [
  "disabled",
  "not-yet-valid",
  "expired",
  "address-not-allowed",
  "tfa-only",
];

export interface UsageCounts {
  allowed: number;
  refused: Record<RefusalReason, number>;
}

/** A key's stored usage: what the recorder has written so far. */
export interface StoredUsage {
  total: UsageCounts;
  last24Hours: UsageCounts;
  lastUsedAt: number | null;
  lastUsedFrom: string | null;
  lastRefusedAt: number | null;
  lastRefusedFrom: string | null;
}

/** Calls of one key gathered in memory between two writes to the database. */
export interface PendingUsage extends UsageCounts {
  lastUsedAt: number | null;
  lastUsedFrom: string | null;
  lastRefusedAt: number | null;
  lastRefusedFrom: string | null;
  /** The hour (hourOf) the counts fall in: a batch that spans an hour is split (see UsageBatch). */
  hour: number;
}

/** What the service answers as a key's `usage` (GET …/api-keys/{key}?include=usage). */
export interface KeyUsage {
  /** ISO times in the API's format; null when it never happened (since recording began). */
  lastUsedAt: string | null;
  lastUsedFrom: string | null;
  lastRefusedAt: string | null;
  lastRefusedFrom: string | null;
  total: UsageCounts;
  last24Hours: UsageCounts;
}

const HOUR_MS = 3_600_000;
/** Hours kept for the 24-hour figure: the current one and the 23 before it. */
const DAY_HOURS = 24;

export function hourOf(time: number): number {
  return Math.floor(time / HOUR_MS);
}

export function noCounts(): UsageCounts {
  return {
    allowed: 0,
    refused: { disabled: 0, "not-yet-valid": 0, expired: 0, "address-not-allowed": 0, "tfa-only": 0 },
  };
}

export function emptyPending(hour: number): PendingUsage {
  return {
    ...noCounts(),
    lastUsedAt: null,
    lastUsedFrom: null,
    lastRefusedAt: null,
    lastRefusedFrom: null,
    hour,
  };
}

/** Counts one call into a pending batch (in place: this is the hot path). */
export function countCall(
  pending: PendingUsage,
  outcome: RefusalReason | "allowed",
  now: number,
  address: string,
): void {
  if (outcome === "allowed") {
    pending.allowed++;
    pending.lastUsedAt = now;
    pending.lastUsedFrom = address;
  } else {
    pending.refused[outcome]++;
    pending.lastRefusedAt = now;
    pending.lastRefusedFrom = address;
  }
}

export function addCounts(into: UsageCounts, from: UsageCounts): UsageCounts {
  const refused = { ...into.refused };
  for (const reason of REFUSAL_REASONS) refused[reason] += from.refused[reason];
  return { allowed: into.allowed + from.allowed, refused };
}

/** The hours whose counts make the last 24 hours at `now`: those above this one. */
export function dayStartHour(now: number): number {
  return hourOf(now) - DAY_HOURS;
}
