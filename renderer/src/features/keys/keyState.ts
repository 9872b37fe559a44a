import {
  EXPIRING_SOON_DAYS,
  isExpiringSoon,
  type KeyState,
  type KeyStateFilter,
  keyStateAt,
  matchesStateFilter,
  validityOf,
} from "../../../../shared/apiKeyRules.ts";
import type { ApiKeyView } from "../../../../shared/bridge.ts";
import { parseApiDateTime } from "../../../../shared/datetime.ts";
import { KEY_STATE_LABELS as SHARED_STATE_LABELS } from "../../../../shared/keyExport.ts";
import { isRetiring } from "../../../../shared/keyRollNames.ts";
import { formatLocal, formatRelative } from "../../time.ts";
import { searchTargetOf } from "./keySearch.ts";
import { unusedFor } from "./keyUsage.ts";

/**
 * What a key's row says about it, by the service's own rules (shared/apiKeys.ts keyStateAt):
 * disabled wins, then the validity window decides between "not yet valid", "expired" and
 * "enabled". Pure, so that it can be tested without a browser.
 */
export type { KeyState };

// The State column's words, shared with the export's state column (shared/keyExport.ts).
export const KEY_STATE_LABELS: Record<KeyState, string> = SHARED_STATE_LABELS;

export const STATE_FILTER_LABELS: Record<KeyStateFilter, string> = {
  ...KEY_STATE_LABELS,
  "expiring-soon": "Expiring soon",
};

type Validity = Pick<ApiKeyView, "enabled" | "validFrom" | "validTo">;

export function keyState(key: Validity, now: number): KeyState {
  return keyStateAt(validityOf(key), now);
}

export function expiringSoon(key: Validity, now: number): boolean {
  return isExpiringSoon(validityOf(key), now);
}

// Times are written as everywhere in the console (time.ts): relative, with the local time and zone.
export const relativeTime = (time: number, now: number): string => formatRelative(time, now);
export const localDateTime = (time: number): string => formatLocal(time);

/**
 * The Valid to column: "expires in 5 days", "expired 2 days ago", "—" (no end); a rolled key (its
 * name marked by the roll, shared/keyRollNames.ts) is "retiring in 23 h" until its end, in every
 * client that lists it.
 */
export function validToText(key: Validity & { name?: string }, now: number): string {
  const to = key.validTo ? parseApiDateTime(key.validTo) : null;
  if (to === null) return "—";
  if (to <= now) return `expired ${relativeTime(to, now)}`;
  return retiringKey(key, now) ? retiringText(to, now) : `expires ${relativeTime(to, now)}`;
}

/**
 * The one wording of a rolled key's end, wherever it is said (the Valid to column, the details'
 * badge and state, the roll dialog): "retiring in 23 h".
 * @internal Exported for tests.
 */
export function retiringText(end: number, now: number): string {
  return `retiring ${relativeTime(end, now)}`;
}

/** Whether the key is a rolled one that still works (see shared/keyRollNames.ts). */
export function retiringKey(key: Validity & { name?: string }, now: number): boolean {
  return key.name !== undefined && isRetiring({ name: key.name, validTo: key.validTo }, now);
}

/**
 * The key's state in words, with the rule that refuses its calls (the service answers 403
 * FORBIDDEN naming it): what the details panel says.
 */
export function stateExplanation(key: Validity & { name?: string }, now: number): string {
  const { validFrom, validTo } = validityOf(key);
  switch (keyState(key, now)) {
    case "disabled":
      return "Disabled: every call made with it is refused (403 FORBIDDEN, “the API key … is disabled”) until an admin enables it again.";
    case "not-yet-valid":
      return `Not yet valid: calls are refused (403 FORBIDDEN, “not valid yet”) until ${localDateTime(validFrom as number)} (${relativeTime(validFrom as number, now)}).`;
    case "expired":
      return `Expired ${localDateTime(validTo as number)} (${relativeTime(validTo as number, now)}): calls are refused (403 FORBIDDEN, “has expired”). Edit its Valid to to use it again.`;
    case "enabled":
      if (validTo !== null && retiringKey(key, now))
        return `Enabled: calls are accepted until ${localDateTime(validTo)}; ${retiringText(validTo, now)} (it was rolled: its successor replaces it).`;
      return validTo === null
        ? "Enabled: calls are accepted (within its allowed IPs and permissions); it does not expire."
        : `Enabled: calls are accepted until ${localDateTime(validTo)}; it expires ${relativeTime(validTo, now)}${isExpiringSoon(validityOf(key), now) ? ` (less than ${EXPIRING_SOON_DAYS} days away)` : ""}.`;
  }
}

/** A short summary of a key's IP restriction, e.g. "Any IP", "10.0.0.0/8", "10.0.0.1 +2 more". */
export function ipSummary(allowedIPs: readonly string[] | undefined): string {
  if (!allowedIPs || allowedIPs.length === 0) return "Any IP";
  const [first] = allowedIPs;
  return allowedIPs.length === 1 ? (first as string) : `${first} +${allowedIPs.length - 1} more`;
}

export interface KeyFilters {
  state: "all" | KeyStateFilter;
  permission: "any" | "ALL" | "TFA";
  name: string;
  /** "Not used for N days"; absent: any. */
  unusedForDays?: number;
}

/** The filters the Keys view opens with: every key. */
export const INITIAL_KEY_FILTERS: KeyFilters = { state: "all", permission: "any", name: "" };

/**
 * What the search text narrows names by: "" for a key id or a hint (looked up instead). Text that
 * could be a publicApiKey may as well be a whole name (`data-export-prod-dave-019`): names match
 * first, and the publicApiKey is looked up beside them.
 */
export function nameNeedle(text: string): string {
  const { kind } = searchTargetOf(text);
  return kind === "name" || kind === "publicApiKey" ? text.trim() : "";
}

/** The keys the filters let through at `now` (name: case-insensitive substring). */
export function filterKeys(keys: readonly ApiKeyView[], filters: KeyFilters, now = Date.now()): ApiKeyView[] {
  const needle = nameNeedle(filters.name).toLowerCase();
  const { state } = filters;
  return keys.filter(
    (key) =>
      (state === "all" || matchesStateFilter(validityOf(key), state, now)) &&
      (filters.permission === "any" || key.permissions.includes(filters.permission)) &&
      (needle === "" || key.name.toLowerCase().includes(needle)) &&
      (filters.unusedForDays === undefined || unusedFor(key, filters.unusedForDays, now)),
  );
}
