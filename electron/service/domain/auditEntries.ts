import {
  AUDIT_CHANNELS,
  AUDIT_REASONS,
  type AuditAction,
  type AuditChange,
  type AuditChannel,
  type AuditEntryDto,
  type AuditReason,
} from "../../../shared/audit.ts";
import { formatApiDateTime } from "../../../shared/datetime.ts";
import type { ApiKeyFields } from "./apiKeyRecords.ts";

/** The audit history's rules: plain functions from a change to the entry that records it. */

/** Who made a change, through what, from where, and why (as the client declared it). */
export interface AuditOrigin {
  actor: string;
  channel: AuditChannel;
  address: string | null;
  reason: AuditReason | null;
}

/** An entry before it is stored: the store adds nothing but its row id. */
export interface NewAuditEntry {
  at: number;
  accountId: number;
  actor: string;
  channel: AuditChannel;
  action: AuditAction;
  reason: AuditReason | null;
  key: string | null;
  changes: Record<string, AuditChange>;
  address: string | null;
}

/** The fields an entry may show. A publicApiKey is not one of them, whatever the caller passes. */
const RECORDED_FIELDS = ["name", "allowedIPs", "permissions", "validFrom", "validTo", "enabled"] as const;
type RecordedField = (typeof RECORDED_FIELDS)[number];

/** `Keydesk-Client`: absent, repeated or unknown is `api` (the header is the client's word). */
export function channelOf(header: string | string[] | undefined): AuditChannel {
  const value = typeof header === "string" ? header.trim().toLowerCase() : "";
  return (AUDIT_CHANNELS as readonly string[]).includes(value) ? (value as AuditChannel) : "api";
}

/** `Keydesk-Action`: `rotate` or `bulk`; anything else records no reason. */
export function reasonOf(header: string | string[] | undefined): AuditReason | null {
  const value = typeof header === "string" ? header.trim().toLowerCase() : "";
  return (AUDIT_REASONS as readonly string[]).includes(value) ? (value as AuditReason) : null;
}

/** A field as the API writes it: times in the API's format, not set as null. */
function shown(field: RecordedField, fields: ApiKeyFields | null): unknown {
  if (fields === null) return null;
  const value = fields[field];
  if ((field === "validFrom" || field === "validTo") && typeof value === "number") {
    return formatApiDateTime(value);
  }
  return value ?? null;
}

/** The recorded fields that differ between two versions of a key (before null: a new key). */
export function fieldChanges(
  before: ApiKeyFields | null,
  after: ApiKeyFields | null,
): Record<string, AuditChange> {
  const changes: Record<string, AuditChange> = {};
  for (const field of RECORDED_FIELDS) {
    const old = shown(field, before);
    const next = shown(field, after);
    if (JSON.stringify(old) !== JSON.stringify(next)) changes[field] = { old, new: next };
  }
  return changes;
}

/**
 * The action an update records: a rotation when the client said so; enable or disable when
 * `enabled` changed; otherwise update. Null when nothing changed (nothing to record).
 */
function updateAction(changes: Record<string, AuditChange>, reason: AuditReason | null): AuditAction | null {
  if (Object.keys(changes).length === 0) return null;
  if (reason === "rotate") return "rotate";
  const enabled = changes.enabled;
  if (enabled) return enabled.new === true ? "enable" : "disable";
  return "update";
}

/** The entry of a key created by a client of the API. */
export function keyCreatedEntry(
  key: ApiKeyFields & { key: string; accountId: number },
  origin: AuditOrigin,
  at: number,
): NewAuditEntry {
  return {
    at,
    accountId: key.accountId,
    ...origin,
    action: origin.reason === "rotate" ? "rotate" : "create",
    key: key.key,
    changes: fieldChanges(null, key),
  };
}

/** The entry of an update, or null when the update changed nothing. */
export function keyUpdatedEntry(
  before: ApiKeyFields,
  after: ApiKeyFields & { key: string; accountId: number },
  origin: AuditOrigin,
  at: number,
): NewAuditEntry | null {
  const changes = fieldChanges(before, after);
  const action = updateAction(changes, origin.reason);
  if (action === null) return null;
  return { at, accountId: after.accountId, ...origin, action, key: after.key, changes };
}

/** Which entries a reader asks for; every filter optional but the accounts it may see. */
export interface AuditQuery {
  /** The account whose entries and whose sub-accounts' entries (any depth) are read. */
  managerId: number;
  /** One account among those (already checked to be managed). */
  accountId?: number;
  key?: string;
  actor?: string;
  /** Inclusive, epoch ms. */
  from?: number;
  /** Exclusive, epoch ms. */
  to?: number;
  /** Entries older than this row id (the cursor's position); newest first. */
  before?: number;
  limit: number;
}

export interface AuditPage {
  entries: AuditEntryDto[];
  /** The row id of the last entry, when more follow. */
  lastId: number | null;
}
