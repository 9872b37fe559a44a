import type { AuditEntryDto } from "../../../shared/audit.ts";
import { formatApiDateTime } from "../../../shared/datetime.ts";

// The audit log: rows and codecs the same on SQLite (auditStore.ts) and PostgreSQL
// (postgres/postgresAudit.ts). No SQL dialect and no connection here, so neither store imports the
// other's code.

/** An entry's row, with its account's key, as either database returns it. */
export interface EntryRow {
  id: number;
  at: number;
  account_key: string;
  actor: string;
  channel: string;
  action: string;
  reason: string | null;
  key: string | null;
  changes: string;
  address: string | null;
}

export function toDto(row: EntryRow): AuditEntryDto {
  return {
    time: formatApiDateTime(row.at),
    accountKey: row.account_key,
    actor: row.actor,
    channel: row.channel as AuditEntryDto["channel"],
    action: row.action as AuditEntryDto["action"],
    reason: row.reason as AuditEntryDto["reason"],
    key: row.key,
    changes: JSON.parse(row.changes) as AuditEntryDto["changes"],
    address: row.address,
  };
}
