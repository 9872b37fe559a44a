import type { z } from "zod";
import type { auditAnswerSchemas } from "./auditAnswers.ts";

/** The audit history as `GET /local/1/audit` answers it (Keydesk's own service only). */

export * from "./auditTerms.ts";

/** A field's value before and after (null: not set, or the key did not exist yet). */
export interface AuditChange {
  old: unknown;
  new: unknown;
}

type AuditAnswers = ReturnType<typeof auditAnswerSchemas>;

/** One change of the audit history (see auditAnswers.ts for each field). */
export type AuditEntryDto = z.infer<AuditAnswers["auditEntry"]>;
export type AuditPageDto = z.infer<AuditAnswers["auditPage"]>;

/**
 * A key's history as the desktop shows it: the newest entries of the key (`more` when older ones
 * exist), or `kept: false` when the profile's service keeps no audit history (another service
 * than Keydesk's own, or an older Keydesk).
 */
export type KeyHistoryDto = { kept: true; entries: AuditEntryDto[]; more: boolean } | { kept: false };

/** Entries of a key the details panel shows at most. */
export const KEY_HISTORY_LIMIT = 100;
