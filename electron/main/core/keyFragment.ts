import type { ApiKeyDto } from "../../../shared/apiKeys.ts";

/**
 * Finding keys by a piece of their key id or publicApiKey (one cut short in a log or a chat), as
 * plain data. Neither is stored where a service can search it in part (a publicApiKey is sealed),
 * so main reads the account's pages and looks: bounded in matches and in keys read.
 */

/** Matches returned at most: a piece that names more keys than this is too short to be useful. */
export const MAX_FRAGMENT_MATCHES = 20;
/** Keys read at most per search (a million-key account is searched in its first 100,000). */
export const MAX_FRAGMENT_SEARCH = 100_000;
/** Keys per page read: the service's largest page. */
export const FRAGMENT_PAGE_KEYS = 1000;

/**
 * Where the piece is in a key: its id (any case), its publicApiKey (any case), or nowhere. Made
 * once per search: the piece is lowered once, not once per key read.
 */
export function fragmentMatcher(fragment: string) {
  const wanted = fragment.toLowerCase();
  return (key: Pick<ApiKeyDto, "key" | "publicApiKey">) => {
    if (key.key.toLowerCase().includes(wanted)) return "keyId" as const;
    if (key.publicApiKey.toLowerCase().includes(wanted)) return "publicApiKey" as const;
    return null;
  };
}
