/**
 * The API key's permissions, id patterns, name length, refusal reasons and usage series sizes: a
 * leaf that apiKeyRules.ts (which re-exports it) and apiKeyAnswers.ts both import (no cycle).
 */

export const PERMISSIONS = ["ALL", "TFA"] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const NAME_MAX_LENGTH = 255;
/** Keydesk's own ids, a key's `key` and an accountKey alike: 32 uppercase hex digits. */
const HEX_32_ID = "[0-9A-F]{32}";
export const KEY_ID_PATTERN = new RegExp(`^${HEX_32_ID}$`);
/** An accountKey in a path: `_` for the caller's own account, or the accountKey of a sub-account. */
export const ACCOUNT_KEY_SEGMENT_PATTERN = new RegExp(`^(_|${HEX_32_ID})$`);
/**
 * Key and account ids as any instance of the API may spell them (the spec leaves their format
 * open; Keydesk's own are 32 hex digits): 1–200 printable characters, no `/`, not `.` or `..`.
 */
export const ANY_ID_PATTERN = /^(?!\.{1,2}$)[\x21-\x2E\x30-\x7E]{1,200}$/;

export const REFUSAL_REASONS = [
  "disabled",
  "not-yet-valid",
  "expired",
  "address-not-allowed",
  "tfa-only",
] as const;
export type RefusalReasonName = (typeof REFUSAL_REASONS)[number];

/** Hours in a key's usage series: the current one and the 47 before it. */
export const SERIES_HOURS = 48;
/** Days in a key's usage series: the current UTC day and the 29 before it. */
export const SERIES_DAYS = 30;
