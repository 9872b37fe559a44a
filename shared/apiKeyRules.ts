/**
 * The API-key resource and the rules about it that need no schema library: the renderer loads
 * these (and never zod) for its first view; apiKeys.ts adds the request schemas and re-exports
 * everything here.
 */
import type { z } from "zod";
import type { apiKeyAnswerSchemas } from "./apiKeyAnswers.ts";
import { NAME_MAX_LENGTH } from "./apiKeyFields.ts";
import { parseApiDateTime } from "./datetime.ts";

export {
  ACCOUNT_KEY_SEGMENT_PATTERN,
  ANY_ID_PATTERN,
  KEY_ID_PATTERN,
  NAME_MAX_LENGTH,
  PERMISSIONS,
  type Permission,
  type RefusalReasonName,
  SERIES_DAYS,
  SERIES_HOURS,
} from "./apiKeyFields.ts";

/** The answers' types come from their schemas (apiKeyAnswers.ts); type-only, so zod stays out. */
type Answers = ReturnType<typeof apiKeyAnswerSchemas>;

/** A key as the API answers it (allowedIPs omitted when the key has no IP restriction). */
export type ApiKeyDto = z.infer<Answers["apiKey"]>;

/** Checks a key name; returns the problems found (empty when the name is fine). */
export function nameProblems(name: string): string[] {
  const problems: string[] = [];
  const trimmed = name.trim();
  if (trimmed.length === 0) problems.push("must not be blank");
  if ([...trimmed].length > NAME_MAX_LENGTH) problems.push(`must be at most ${NAME_MAX_LENGTH} characters`);
  if (!name.isWellFormed()) problems.push("must be valid Unicode text (it contains a lone surrogate)");
  if (/\p{Cc}/u.test(trimmed))
    problems.push("must not contain control characters such as tabs or line breaks");
  return problems;
}

/**
 * A key's state as App authorization decides it at `now`, in the order refusalOf checks: disabled
 * wins, then validFrom (not yet valid), then validTo (expired from validTo on, exclusive). An
 * enabled key inside its window is "enabled"; one of those that expires within EXPIRING_SOON_MS is
 * "expiring soon" as well (a subset of "enabled", see isExpiringSoon).
 */
const KEY_STATES = ["enabled", "disabled", "expired", "not-yet-valid"] as const;
export type KeyState = (typeof KEY_STATES)[number];
/** What the State filter offers: the states, and "expiring-soon" (enabled, expiring within 7 days). */
export const KEY_STATE_FILTERS = [...KEY_STATES, "expiring-soon"] as const;
export type KeyStateFilter = (typeof KEY_STATE_FILTERS)[number];

/** "Expiring soon": an enabled key whose validTo is less than 7 days away. */
export const EXPIRING_SOON_DAYS = 7;
export const EXPIRING_SOON_MS = EXPIRING_SOON_DAYS * 24 * 60 * 60 * 1000;

/** A key's validity as times in ms (null: no bound). */
export interface KeyValidity {
  enabled: boolean;
  validFrom: number | null;
  validTo: number | null;
}

export function keyStateAt(key: KeyValidity, now: number): KeyState {
  if (!key.enabled) return "disabled";
  if (key.validFrom !== null && now < key.validFrom) return "not-yet-valid";
  if (key.validTo !== null && now >= key.validTo) return "expired";
  return "enabled";
}

export function isExpiringSoon(key: KeyValidity, now: number): boolean {
  return keyStateAt(key, now) === "enabled" && key.validTo !== null && key.validTo - now < EXPIRING_SOON_MS;
}

export function matchesStateFilter(key: KeyValidity, filter: KeyStateFilter, now: number): boolean {
  return filter === "expiring-soon" ? isExpiringSoon(key, now) : keyStateAt(key, now) === filter;
}

/** The validity of a key as the API answers it (datetime strings). */
export function validityOf(key: Pick<ApiKeyDto, "enabled" | "validFrom" | "validTo">): KeyValidity {
  return {
    enabled: key.enabled,
    validFrom: key.validFrom ? parseApiDateTime(key.validFrom) : null,
    validTo: key.validTo ? parseApiDateTime(key.validTo) : null,
  };
}

/** What a list of keys can be ordered by (a Keydesk extension of the list call: sort, order). */
export const KEY_SORT_FIELDS = ["created", "name", "validTo", "state"] as const;
export type KeySortField = (typeof KEY_SORT_FIELDS)[number];

export interface KeySort {
  by: KeySortField;
  desc: boolean;
}

const NO_END = Number.MAX_SAFE_INTEGER;
/** SQLite's NOCASE: ASCII letters folded, nothing else. */
const foldAscii = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/**
 * Keys in a sort's order, as a Keydesk service orders them (store/apiKeyStore.ts): for lists of a
 * service that does not sort, ordered in main. `keys` is in creation order, which breaks ties.
 */
export function sortApiKeys<K extends Pick<ApiKeyDto, "name" | "enabled" | "validTo">>(
  keys: readonly K[],
  sort: KeySort,
): K[] {
  const validTo = (key: K) => (key.validTo ? (parseApiDateTime(key.validTo) ?? NO_END) : NO_END);
  const compare: Record<KeySortField, (a: K, b: K) => number> = {
    created: () => 0,
    name: (a, b) => {
      const [x, y] = [foldAscii(a.name), foldAscii(b.name)];
      return x < y ? -1 : x > y ? 1 : 0;
    },
    validTo: (a, b) => validTo(a) - validTo(b),
    state: (a, b) => Number(b.enabled) - Number(a.enabled) || validTo(a) - validTo(b),
  };
  // A stable sort keeps creation order among equals; desc is the whole order reversed.
  const sorted = [...keys].sort(compare[sort.by]);
  return sort.desc ? sorted.reverse() : sorted;
}

/**
 * What a key answer of our own service can carry beyond the spec's fields when asked
 * (`include=usage,created`, a Keydesk extension of get, list and page): the key's usage and its
 * creation time. Without `include` the answers are the spec's.
 */
export const KEY_INCLUDES = ["usage", "created"] as const;
export type KeyInclude = (typeof KEY_INCLUDES)[number];

/** The largest N of the "not used for N days" filter (`unusedForDays`): ten years. */
export const UNUSED_FOR_DAYS_MAX = 3650;
export const DAY_MS = 24 * 60 * 60 * 1000;

export type UsageCountsDto = z.infer<Answers["usageCounts"]>;

/** A key's usage as the service answers it (`include=usage`); times null when it never happened. */
export type KeyUsageDto = z.infer<Answers["keyUsage"]>;

/** One hour or UTC day of a key's usage series: when it starts (an API datetime) and its calls. */
export type UsageBucketDto = KeyUsageSeriesDto["hours"][number];

/**
 * A key's usage over time as the service answers it (`GET …/api-keys/{key}/usage-series`): 48
 * hours and 30 UTC days, oldest first, the current hour and day last, zero-filled.
 */
export type KeyUsageSeriesDto = z.infer<Answers["keyUsageSeries"]>;

/** A key's usage series as the desktop shows it; `recorded: false` where the service records none. */
export type KeyUsageSeriesAnswer = ({ recorded: true } & KeyUsageSeriesDto) | { recorded: false };

/** A key answer with what `include` asked for: createdAt null when the creation time is not known. */
export type ApiKeyWithExtrasDto = z.infer<Answers["apiKeyWithExtras"]>;
