import type { ApiKeyView } from "../../../../shared/bridge.ts";

/**
 * What the one search box was given, besides a piece of a name: a key id (Keydesk's: 32 hex
 * digits, any case), a whole publicApiKey (looked up by the service through its digest), or a
 * hint as the table shows it ("f87f52…e7fb", also with "..."). Pure, so it can be tested alone.
 */
export type SearchTarget =
  | { kind: "keyId"; id: string }
  | { kind: "publicApiKey"; value: string }
  | { kind: "hint"; hint: string }
  | { kind: "name" };

const KEY_ID = /^[0-9A-Fa-f]{32}$/;
const HINT = /^([0-9A-Za-z-]{1,6})(?:…|\.\.\.)([0-9A-Za-z-]{1,4})$/;
/** Shorter than any publicApiKey Keydesk makes, longer than a name is likely to be typed. */
const PUBLIC_API_KEY_MIN = 24;

export function searchTargetOf(text: string): SearchTarget {
  const value = text.trim();
  if (KEY_ID.test(value)) return { kind: "keyId", id: value.toUpperCase() };
  const hint = HINT.exec(value);
  if (hint) return { kind: "hint", hint: `${hint[1]}…${hint[2]}` };
  if (value.length >= PUBLIC_API_KEY_MIN && !/\s/.test(value)) return { kind: "publicApiKey", value };
  return { kind: "name" };
}

/** The keys whose hint starts and ends as the one typed (a hint's ends may be typed shorter). */
export function keysWithHint(keys: readonly ApiKeyView[], hint: string): ApiKeyView[] {
  const [start = "", end = ""] = hint.toLowerCase().split("…");
  return keys.filter((key) => {
    const [keyStart = "", keyEnd = ""] = key.publicApiKeyHint.toLowerCase().split("…");
    return keyStart.startsWith(start) && keyEnd.endsWith(end);
  });
}
