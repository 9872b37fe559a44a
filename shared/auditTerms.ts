/** What an audit entry's channel, reason and action may be: a leaf both audit.ts and auditAnswers.ts import (no cycle). */

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
