import { type ApiKeyView, KEY_FRAGMENT_MIN } from "../../../../shared/bridge.ts";

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

/**
 * The text as a piece of a key id or publicApiKey (one cut short in a log), or null: letters,
 * digits and dashes with a digit among them, at least as long as a hint's start. A whole key id or
 * a hint is looked up as such, not as a piece.
 */
export function fragmentOf(text: string): string | null {
  const value = text.trim();
  const kind = searchTargetOf(value).kind;
  if (kind === "keyId" || kind === "hint") return null;
  if (value.length < KEY_FRAGMENT_MIN || value.length > 200) return null;
  return /^[0-9A-Za-z-]+$/.test(value) && /[0-9]/.test(value) ? value : null;
}

/**
 * The keys whose hint starts and ends as the one typed (a hint's ends may be typed shorter).
 * @internal Exported for tests.
 */
export function keysWithHint(keys: readonly ApiKeyView[], hint: string): ApiKeyView[] {
  const [start = "", end = ""] = hint.toLowerCase().split("…");
  return keys.filter((key) => {
    const [keyStart = "", keyEnd = ""] = key.publicApiKeyHint.toLowerCase().split("…");
    return keyStart.startsWith(start) && keyEnd.endsWith(end);
  });
}

/** The keys with that hint among the loaded rows and those main found in the account, each once. */
export function keysWithHintAnywhere(
  loaded: readonly ApiKeyView[],
  found: readonly ApiKeyView[],
  hint: string,
): ApiKeyView[] {
  const keys = keysWithHint(loaded, hint);
  const seen = new Set(keys.map((key) => key.key));
  return [...keys, ...keysWithHint(found, hint).filter((key) => !seen.has(key.key))];
}

/**
 * The rows the table shows for a search. A key id or a hint names keys, not a name: the table
 * shows only the keys found (none while the lookup runs), never every key beside a "found" line,
 * where a select-all would reach them all. A publicApiKey, or a piece of a key id or publicApiKey,
 * found is shown first, before the keys whose names hold the text. `narrowed`: the rows are exactly the search's, no page follows them.
 */
export function searchRows<K extends { key: string }>(
  kind: SearchTarget["kind"],
  found: { shown: boolean; keys: readonly K[] },
  nameRows: readonly K[],
): { rows: readonly K[]; narrowed: boolean } {
  if (kind === "keyId" || kind === "hint") return { rows: found.shown ? found.keys : [], narrowed: true };
  if (found.shown && found.keys.length > 0) {
    const ids = new Set(found.keys.map((key) => key.key));
    return { rows: [...found.keys, ...nameRows.filter((key) => !ids.has(key.key))], narrowed: false };
  }
  return { rows: nameRows, narrowed: false };
}
