import type { StoredApiKey } from "./apiKeyRules.ts";

/**
 * Told of every key the API creates or updates, inside the same transaction as the write, so
 * whatever it records (the sync outbox) is committed together with the key or not at all.
 * Throwing rolls the write back.
 */
export interface KeyWriteJournal {
  created(key: StoredApiKey): void;
  updated(before: StoredApiKey, after: StoredApiKey): void;
}
