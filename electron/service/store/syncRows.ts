import { z } from "zod";
import type { AuditReason } from "../../../shared/audit.ts";
import type { SyncedField } from "../../../shared/sync.ts";
import type { SecretBox } from "../crypto/secretBox.ts";
import {
  type Fields,
  type LinkCounts,
  type OutboxEntry,
  type SyncKeyState,
  type SyncLink,
  type SyncRunRecord,
  syncedFieldsOf,
} from "../domain/syncRecords.ts";

// The sync state: rows and codecs the same on SQLite (syncStore.ts) and PostgreSQL
// (postgres/postgresSync.ts). No SQL dialect and no connection here, so neither store imports the
// other's code.

/*
 * What follows up to the SyncStore class is how the sync tables' rows are kept, on either
 * database (postgres/postgresSync.ts uses the same functions): row shapes, JSON forms, the sealed
 * remote password. A flag is 0/1 on SQLite and a boolean on PostgreSQL; both read the same.
 */

/** Fields as stored in the sync tables (JSON): the synced fields only. */
export const serializeFields = (fields: Fields): string => JSON.stringify(syncedFieldsOf(fields));
const parseFields = (json: string): Fields => JSON.parse(json) as Fields;

/** A key's conflict as stored: null when no field is in conflict. */
export const serializeConflict = (conflict: SyncKeyState["conflict"]): string | null =>
  conflict && Object.keys(conflict).length > 0 ? JSON.stringify(conflict) : null;

export const serializeConflictOrigin = (origin: SyncKeyState["conflictOrigin"]): string | null =>
  origin && Object.keys(origin).length > 0 ? JSON.stringify(origin) : null;

/** An outbox entry's `fields` column when it is queued: the fields changed and why. */
export const entryFieldsJson = (
  fields: readonly SyncedField[],
  reason: AuditReason | null | undefined,
): string => JSON.stringify({ fields, ...(reason && { reason }) });

/**
 * A create's `fields` column once an attempt is recorded: with the body sent, the synced fields
 * only (what a create sends never includes the publicApiKey, kept sealed in api_keys).
 */
export const createAttemptJson = (
  sentBody: Fields,
  fields: readonly SyncedField[],
  reason: AuditReason | null,
): string => JSON.stringify({ fields, sentBody: syncedFieldsOf(sentBody), ...(reason && { reason }) });

const flag = (value: number | boolean): boolean => value === true || value === 1;

/**
 * The stored run log with `run` added: newest first, the oldest dropped past `keep`, so a link's
 * row stays bounded however long it lives.
 */
export function runLogWith(stored: string | null, run: SyncRunRecord, keep: number): string {
  return JSON.stringify([run, ...parseRunLog(stored)].slice(0, keep));
}

const count = z.number().int().nonnegative();
/** One run as the log keeps it (SyncRunRecord); fields the log gains later are left out. */
const storedRun = z.object({
  startedAt: z.number(),
  endedAt: z.number(),
  pulled: count,
  pushed: count,
  conflicts: count,
  error: z.string().nullable(),
}) satisfies z.ZodType<SyncRunRecord>;

/**
 * The runs of a stored log that read as runs. The column is JSON the store wrote, but a row may
 * have been edited, restored from an older version or damaged: a run that does not read is left
 * out (the others stay), and a log that is not a list starts again, rather than answering the
 * API a shape it does not promise.
 */
function parseRunLog(stored: string | null): SyncRunRecord[] {
  if (stored === null) return [];
  let log: unknown;
  try {
    log = JSON.parse(stored);
  } catch {
    return [];
  }
  if (!Array.isArray(log)) return [];
  return log.flatMap((entry) => {
    const run = storedRun.safeParse(entry);
    return run.success ? [run.data] : [];
  });
}

export interface LinkRow {
  id: number;
  account_id: number;
  remote_base_url: string;
  remote_username: string;
  remote_account_key: string;
  interval_seconds: number;
  paused_reason: string | null;
  last_attempt_at: number | null;
  last_success_at: number | null;
  last_error: string | null;
  next_attempt_at: number | null;
  failures: number;
  run_log: string | null;
}

export interface KeyRow {
  api_key_id: number;
  link_id: number;
  remote_key: string | null;
  base: string | null;
  remote_missing: number | boolean;
  conflict: string | null;
  conflict_origin: string | null;
}

export interface OutboxRow {
  id: number;
  link_id: number;
  api_key_id: number;
  kind: string;
  fields: string;
  idempotency_key: string | null;
  attempts: number;
  failed: number | boolean;
  last_error: string | null;
  created_at: number;
}

export const LINK_COLUMNS = `id, account_id, remote_base_url, remote_username, remote_account_key, interval_seconds,
  paused_reason, last_attempt_at, last_success_at, last_error, next_attempt_at, failures, run_log`;

export const toLink = (row: LinkRow): SyncLink => ({
  id: row.id,
  accountId: row.account_id,
  remoteBaseUrl: row.remote_base_url,
  remoteUsername: row.remote_username,
  remoteAccountKey: row.remote_account_key,
  intervalSeconds: row.interval_seconds,
  pausedReason: row.paused_reason as SyncLink["pausedReason"],
  lastAttemptAt: row.last_attempt_at,
  lastSuccessAt: row.last_success_at,
  lastError: row.last_error,
  nextAttemptAt: row.next_attempt_at,
  failures: row.failures,
  runLog: parseRunLog(row.run_log),
});

export const toKeyState = (row: KeyRow): SyncKeyState => ({
  apiKeyId: row.api_key_id,
  linkId: row.link_id,
  remoteKey: row.remote_key,
  base: row.base === null ? null : parseFields(row.base),
  remoteMissing: flag(row.remote_missing),
  conflict: row.conflict === null ? null : (JSON.parse(row.conflict) as SyncKeyState["conflict"]),
  conflictOrigin:
    row.conflict_origin === null || row.conflict_origin === undefined
      ? null
      : (JSON.parse(row.conflict_origin) as SyncKeyState["conflictOrigin"]),
});

export function toEntry(row: OutboxRow): OutboxEntry {
  const stored = JSON.parse(row.fields) as { fields: SyncedField[]; sentBody?: Fields; reason?: AuditReason };
  return {
    id: row.id,
    linkId: row.link_id,
    apiKeyId: row.api_key_id,
    kind: row.kind as OutboxEntry["kind"],
    fields: stored.fields,
    sentBody: stored.sentBody ?? null,
    reason: stored.reason ?? null,
    idempotencyKey: row.idempotency_key,
    attempts: row.attempts,
    failed: flag(row.failed),
    lastError: row.last_error,
    createdAt: row.created_at,
  };
}

/** A link's remote password at rest: sealed with the data key, bound to the link's account. */
const passwordContext = (accountId: number) => `sync-link-password:${accountId}`;

export function sealRemotePassword(box: SecretBox, password: string, accountId: number): Buffer {
  return box.encrypt(password, passwordContext(accountId));
}

export function unsealRemotePassword(box: SecretBox, sealed: Buffer, accountId: number): string {
  return box.decrypt(sealed, passwordContext(accountId));
}

/**
 * What dropping `fields` from a key's outbox entries (in id order) changes: update entries up to
 * `upToId` lose those fields; one left with none is deleted, the others are rewritten.
 */
export function droppedFields(
  entries: readonly OutboxEntry[],
  fields: readonly SyncedField[],
  upToId: number,
): { deleted: number[]; rewritten: { id: number; fields: string }[] } {
  const deleted: number[] = [];
  const rewritten: { id: number; fields: string }[] = [];
  for (const entry of entries) {
    if (entry.kind !== "update" || entry.id > upToId) continue;
    const left = entry.fields.filter((field) => !fields.includes(field));
    if (left.length === entry.fields.length) continue;
    if (left.length === 0) deleted.push(entry.id);
    else rewritten.push({ id: entry.id, fields: JSON.stringify({ fields: left }) });
  }
  return { deleted, rewritten };
}

/** A link's counts from its two count rows (either database; a sum over no row is null on SQLite). */
export function linkCountsOf(
  outbox: { pending: number | null; failed: number | null } | undefined,
  keys: { conflicts: number | null; missing: number | null; linked: number } | undefined,
): LinkCounts {
  return {
    pending: Number(outbox?.pending ?? 0),
    failed: Number(outbox?.failed ?? 0),
    conflicts: Number(keys?.conflicts ?? 0),
    remoteMissing: Number(keys?.missing ?? 0),
    linkedKeys: Number(keys?.linked ?? 0),
  };
}
