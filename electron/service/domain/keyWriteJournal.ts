import type { StoreWrite } from "../store/store.ts";
import type { StoredApiKey } from "./apiKeyRecords.ts";
import type { AuditOrigin } from "./auditEntries.ts";

/**
 * Told of every key the API creates or updates, inside the same write, through that write's `tx`:
 * whatever it records (the sync outbox) is committed together with the key or not at all, on
 * any store. Rejecting rolls the write back. Like the write's work, it awaits only `tx`.
 */
export interface KeyWriteJournal {
  /** `origin`: who made the change, and why (a rotation, a bulk change), as the audit records it. */
  created(tx: StoreWrite, key: StoredApiKey, origin?: AuditOrigin): Promise<void>;
  updated(tx: StoreWrite, before: StoredApiKey, after: StoredApiKey, origin?: AuditOrigin): Promise<void>;
}
