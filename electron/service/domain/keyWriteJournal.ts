import type { StoredApiKey } from "./apiKeyRules.ts";
import type { AuditOrigin } from "./auditEntries.ts";

/**
 * Told of every key the API creates or updates, inside the same transaction as the write, so
 * whatever it records (the sync outbox) is committed together with the key or not at all.
 * Throwing rolls the write back.
 */
export interface KeyWriteJournal {
  /** `origin`: who made the change, and why (a rotation, a bulk change), as the audit records it. */
  created(key: StoredApiKey, origin?: AuditOrigin): void;
  updated(before: StoredApiKey, after: StoredApiKey, origin?: AuditOrigin): void;
}
