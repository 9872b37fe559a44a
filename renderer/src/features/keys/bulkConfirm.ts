import { keysWord } from "./keysWord.ts";

/**
 * How a bulk disable is confirmed. Disabling a few keys takes one click in the confirmation; from
 * TYPED_CONFIRM_MIN_KEYS keys on (an outage for many applications at once) the admin types the
 * number of keys, as GitHub's dangerous-action dialogs ask for the repository's name: a slip of
 * the mouse cannot do it. A selection not counted yet ("all matching") asks for the account's name.
 * Also what the confirmation says a bulk change does, in the singular for one key.
 */

/** @internal Exported for tests. */
export const TYPED_CONFIRM_MIN_KEYS = 20;

/** What must be typed to disable `count` keys of the account, or null when a click is enough. */
export function typedConfirmation(count: number | undefined, accountName: string): string | null {
  if (count !== undefined && count < TYPED_CONFIRM_MIN_KEYS) return null;
  return count === undefined ? accountName : String(count);
}

/** Whether `typed` is what was asked (a number may carry group separators: "1,200"). */
export function confirmationMatches(typed: string, expected: string): boolean {
  const text = typed.trim();
  if (/^\d+$/.test(expected)) return text.replace(/[\s,.'\u00a0\u202f]/g, "") === expected;
  return text === expected;
}

/**
 * What a bulk enable (`enabled` true) or disable does to the applications, for `count` keys
 * (undefined: all matching the filter, not counted yet), in the singular for one key.
 */
export function bulkEffect(enabled: boolean, count: number | undefined): string {
  const one = count === 1;
  const keys =
    count === undefined ? "the keys matching the filter" : one ? "this key" : `these ${keysWord(count)}`;
  return enabled
    ? `Applications using ${keys} are accepted again (within ${one ? "its" : "each key's"} validity, IPs and permissions): an expired key or one not valid yet stays refused.`
    : `Every application using ${keys} is refused from now on (403 FORBIDDEN, “the API key … is disabled”) until ${one ? "the key is" : "the keys are"} enabled again.`;
}
