import { z } from "zod";

/** The audit history as `GET /local/1/audit` answers it (Keydesk's own service only). */

/** Who called: self-declared by the client with `Keydesk-Client`; absent or unknown is `api`. */
export const AUDIT_CHANNELS = ["api", "desktop", "cli", "sync"] as const;
export type AuditChannel = (typeof AUDIT_CHANNELS)[number];

/** Why a create or update was made, when the client says (`Keydesk-Action`). */
export const AUDIT_REASONS = ["rotate", "bulk"] as const;
export type AuditReason = (typeof AUDIT_REASONS)[number];

export const AUDIT_ACTIONS = [
  "create",
  "update",
  "enable",
  "disable",
  "rotate",
  "sync-pull",
  "sync-push",
  "sync-resolve",
  "account-add",
  "account-passwd",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** A field's value before and after (null: not set, or the key did not exist yet). */
export interface AuditChange {
  old: unknown;
  new: unknown;
}

export interface AuditEntryDto {
  /** `yyyy-MM-ddTHH:mm:ss.SSS+0000` */
  time: string;
  accountKey: string;
  /** The username of the account whose credentials made the change. */
  actor: string;
  channel: AuditChannel;
  action: AuditAction;
  reason: AuditReason | null;
  /** The key's `key` (never its publicApiKey); null for an account change. */
  key: string | null;
  changes: Record<string, AuditChange>;
  /** The client's address (for a sync pull, the remote's origin); null when there was none (the CLI). */
  address: string | null;
}

export interface AuditPageDto {
  entries: AuditEntryDto[];
  nextCursor: string | null;
}

const changeSchema = z.strictObject({ old: z.unknown(), new: z.unknown() });

const auditEntrySchema = z.strictObject({
  time: z.string(),
  accountKey: z.string(),
  actor: z.string(),
  channel: z.enum(AUDIT_CHANNELS),
  action: z.enum(AUDIT_ACTIONS),
  reason: z.enum(AUDIT_REASONS).nullable(),
  key: z.string().nullable(),
  changes: z.record(z.string(), changeSchema),
  address: z.string().nullable(),
});

export const auditPageSchema = z.strictObject({
  entries: z.array(auditEntrySchema),
  nextCursor: z.string().nullable(),
});

/**
 * A key's history as the desktop shows it: the newest entries of the key (`more` when older ones
 * exist), or `kept: false` when the profile's service keeps no audit history (another service
 * than Keydesk's own, or an older Keydesk).
 */
export type KeyHistoryDto = { kept: true; entries: AuditEntryDto[]; more: boolean } | { kept: false };

/** Entries of a key the details panel shows at most. */
export const KEY_HISTORY_LIMIT = 100;
