/**
 * A key's usage and creation time in words, for the Keys table and the details panel. Keydesk's
 * own service reports them; another service does not (the fields are then absent, and the table
 * shows "—" with a tooltip saying so, never an error). Pure: `now` is a parameter.
 */

import { DAY_MS, type RefusalReasonName, type UsageCountsDto } from "../../../../shared/apiKeyRules.ts";
import type { ApiKeyView } from "../../../../shared/bridge.ts";
import { parseApiDateTime } from "../../../../shared/datetime.ts";
import { formatLocal as localDateTime, formatPast as relativeTime } from "../../time.ts";

const NOT_REPORTED = "—";
export const USAGE_NOT_REPORTED = "This service does not report the usage of keys";
/** @internal Exported for tests. */
export const CREATED_NOT_REPORTED = "This service does not report when keys were created";

/** The refusal rules in words, as the details list them. */
const REFUSAL_LABELS: Record<RefusalReasonName, string> = {
  disabled: "while disabled",
  "not-yet-valid": "before its validFrom",
  expired: "after its validTo",
  "address-not-allowed": "from an address not allowed",
  "tfa-only": "to an API a TFA key may not call",
};

/** The "Not used for" filter's choices, in days. */
export const UNUSED_CHOICES = [7, 30, 90, 365] as const;
export const unusedLabel = (days: number) => (days === 365 ? "1 year" : `${days} days`);

export interface CellText {
  text: string;
  title: string;
  /** A call that should be looked at: the key's calls were all refused. */
  warning?: boolean;
}

/**
 * "never", "3 min ago"; the local time and the address on hover. A key whose every call was
 * refused is not "never" used: something calls it and fails, which an admin about to delete an
 * "unused" key must see ("refused 2 min ago").
 */
export function lastUsedText(key: ApiKeyView, now: number): CellText {
  const usage = key.usage;
  if (usage === undefined) return { text: NOT_REPORTED, title: USAGE_NOT_REPORTED };
  const at = usage.lastUsedAt === null ? null : parseApiDateTime(usage.lastUsedAt);
  if (at === null) {
    const refusedAt = usage.lastRefusedAt === null ? null : parseApiDateTime(usage.lastRefusedAt);
    if (refusedAt === null) return { text: "never", title: "No allowed call since usage recording began" };
    return {
      text: `refused ${relativeTime(refusedAt, now)}`,
      title:
        `No allowed call since usage recording began; ${refusedTotal(usage.total).toLocaleString()} refused ` +
        `(${refusalsInWords(usage.total)}), the last at ${localDateTime(refusedAt)}` +
        `${usage.lastRefusedFrom ? ` from ${usage.lastRefusedFrom}` : ""}`,
      warning: true,
    };
  }
  return {
    text: relativeTime(at, now),
    title: `${localDateTime(at)}${usage.lastUsedFrom ? ` from ${usage.lastUsedFrom}` : ""}`,
  };
}

/** When the key was created, relative; "unknown" where it is not known. */
export function createdText(key: ApiKeyView, now: number): CellText {
  if (key.createdAt === undefined) return { text: NOT_REPORTED, title: CREATED_NOT_REPORTED };
  const at = key.createdAt === null ? null : parseApiDateTime(key.createdAt);
  if (at === null) {
    return {
      text: "unknown",
      title: "Not known: the key was copied here by sync, or created before Keydesk recorded creation times",
    };
  }
  return { text: relativeTime(at, now), title: localDateTime(at) };
}

export const refusedTotal = (counts: UsageCountsDto) =>
  Object.values(counts.refused).reduce((sum, count) => sum + count, 0);

/** "2 disabled, 1 from an address not in its allowed IPs": the refusals by rule, or "none". */
export function refusalsInWords(counts: UsageCountsDto): string {
  const parts = (Object.entries(counts.refused) as [RefusalReasonName, number][])
    .filter(([, count]) => count > 0)
    .map(([reason, count]) => `${count.toLocaleString()} ${REFUSAL_LABELS[reason]}`);
  return parts.length === 0 ? "none" : parts.join("; ");
}

/**
 * Whether a key loaded earlier has had no allowed call for `days`: it is at least that old (the
 * service's rule; a creation time not known does not exclude it) and was not used since. Unknown
 * usage: kept, the service decides.
 */
export function unusedFor(key: ApiKeyView, days: number, now: number): boolean {
  if (key.usage === undefined) return true;
  const since = now - days * DAY_MS;
  const created = typeof key.createdAt === "string" ? parseApiDateTime(key.createdAt) : null;
  if (created !== null && created > since) return false;
  const at = key.usage.lastUsedAt === null ? null : parseApiDateTime(key.usage.lastUsedAt);
  return at === null || at < since;
}
