import type { AuditReason } from "../../../shared/audit.ts";
import type { SyncedField } from "../../../shared/sync.ts";
import type { ApiKeyFields } from "./apiKeyRecords.ts";

/**
 * A sync link's state as electron/sync works with it, whatever the database: the link, its
 * linked keys and its outbox (the store keeps them; the sync engine decides with them).
 */

/** A key's synced fields, in the service's stored form (electron/sync/syncedFields.ts). */
export type Fields = ApiKeyFields;

/**
 * Exactly the synced fields. A stored key is a Fields too, but also carries its ids and its
 * publicApiKey in clear, which must never be copied into the sync tables.
 */
export function syncedFieldsOf(fields: Fields): Fields {
  const { name, allowedIPs, permissions, validFrom, validTo, enabled } = fields;
  return { name, allowedIPs, permissions, validFrom, validTo, enabled };
}

export interface SyncLink {
  id: number;
  accountId: number;
  remoteBaseUrl: string;
  remoteUsername: string;
  remoteAccountKey: string;
  intervalSeconds: number;
  pausedReason: "credentials" | "user" | null;
  lastAttemptAt: number | null;
  lastSuccessAt: number | null;
  lastError: string | null;
  nextAttemptAt: number | null;
  failures: number;
  /** The link's recent runs, newest first (at most SYNC_RUN_LOG_SIZE). */
  runLog: SyncRunRecord[];
}

/** What one finished run of a link did (a run stopped part way is not recorded). */
export interface SyncRunRecord {
  startedAt: number;
  endedAt: number;
  /** Keys created or changed here from the remote. */
  pulled: number;
  /** Keys created or changed on the remote. */
  pushed: number;
  /** Keys in conflict when the run ended. */
  conflicts: number;
  /** Why the run failed (or the keys it could not handle); null when it went through. */
  error: string | null;
}

export interface SyncKeyState {
  apiKeyId: number;
  linkId: number;
  remoteKey: string | null;
  /** The fields both sides last agreed on; null before the key's create reached the remote. */
  base: Fields | null;
  remoteMissing: boolean;
  /** Field → the remote's value, for fields changed differently on both sides. */
  conflict: Partial<Record<SyncedField, unknown>> | null;
  /** Field → where its conflicting remote value came from (may outlive the conflict: read with it). */
  conflictOrigin: Partial<Record<SyncedField, ConflictOrigin>> | null;
}

/**
 * Where a conflicting remote value came from: when a pull first saw it here, and, when the remote
 * keeps an audit history (a Keydesk service), who set it there and when. The key-management API
 * itself answers neither.
 */
export interface ConflictOrigin {
  seenAt: number;
  /** When the remote says the value was set; null when it does not say. */
  at: number | null;
  /** Who set it, as the remote's audit names them; null when it does not say. */
  by: string | null;
}

export interface OutboxEntry {
  id: number;
  linkId: number;
  apiKeyId: number;
  kind: "create" | "update";
  /** update: the fields changed; create: all of them. */
  fields: SyncedField[];
  /** create only: the fields sent at the last attempt (matched against the remote's keys after a lost answer). */
  sentBody: Fields | null;
  /** Why the change was made here (a rotation, a bulk change): sent as Keydesk-Action. */
  reason: AuditReason | null;
  idempotencyKey: string | null;
  attempts: number;
  failed: boolean;
  lastError: string | null;
  createdAt: number;
}

export interface LocalOnlyKey {
  id: number;
  key: string;
  name: string;
  enabled: boolean;
  /** Its validity window (ms), so that the list says expired or not yet valid as the Keys table does. */
  validFrom: number | null;
  validTo: number | null;
}

export interface LinkCounts {
  pending: number;
  failed: number;
  conflicts: number;
  remoteMissing: number;
  linkedKeys: number;
}
