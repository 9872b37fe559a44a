import type { QueryClient } from "@tanstack/react-query";

/** The expiry notifications' list of keys expiring soon (features/notifications). */
export const EXPIRING_KEYS_QUERY = "keys.expiring";

/** The keys of one base name: a key's roll links (features/keys RollLinks). */
export const NAMED_KEYS_QUERY = "keys.named";

/**
 * Refetches every key list, count and history (of every account): after creates, edits and syncs.
 * Here rather than in a feature: the keys view and the sync view both change keys, and neither
 * feature imports the other's hooks for it.
 */
export function invalidateKeyLists(queryClient: QueryClient): Promise<unknown> {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: ["keys.page"] }),
    queryClient.invalidateQueries({ queryKey: ["keys.count"] }),
    queryClient.invalidateQueries({ queryKey: ["keys.history"] }),
    queryClient.invalidateQueries({ queryKey: [EXPIRING_KEYS_QUERY] }),
    queryClient.invalidateQueries({ queryKey: [NAMED_KEYS_QUERY] }),
  ]);
}
