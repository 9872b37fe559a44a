import type { AuditEntryDto } from "../../shared/audit.ts";
import { parseApiDateTime } from "../../shared/datetime.ts";
import type { SyncedField } from "../../shared/sync.ts";
import type { ConflictOrigin, SyncKeyState } from "../service/domain/syncRecords.ts";
import type { RunContext } from "./runContext.ts";

/**
 * Where a conflict's two values came from, for the admin who chooses between them. The remote's
 * side: the key-management API answers no updatedAt and no author, so a pull records when it first
 * saw each conflicting value, and, when the remote keeps an audit history (a Keydesk service's
 * `/local/1/audit`), who set it there and when, as the remote answered it.
 */

/** Keys whose remote audit one run asks, at most: a pull that finds thousands of conflicts stays short. */
const MAX_ORIGINS_ASKED = 20;

/** Entries of a key's remote history read to find who set a value. */
const HISTORY_READ = 50;

/**
 * The origins after a merge: a field whose remote value is the one seen before keeps its origin;
 * a new or changed one is seen `now`, its author not known yet (`fresh` names those fields).
 */
export function originsAfterMerge(
  before: Pick<SyncKeyState, "conflict" | "conflictOrigin">,
  conflicts: Partial<Record<SyncedField, unknown>> | null,
  now: number,
): { origin: SyncKeyState["conflictOrigin"]; fresh: SyncedField[] } {
  if (!conflicts) return { origin: null, fresh: [] };
  const origin: Partial<Record<SyncedField, ConflictOrigin>> = {};
  const fresh: SyncedField[] = [];
  for (const [name, theirs] of Object.entries(conflicts)) {
    const field = name as SyncedField;
    const known = before.conflictOrigin?.[field];
    const same =
      before.conflict !== null &&
      field in before.conflict &&
      JSON.stringify(before.conflict[field]) === JSON.stringify(theirs);
    if (known && same) origin[field] = known;
    else {
      origin[field] = { seenAt: now, at: null, by: null };
      fresh.push(field);
    }
  }
  return { origin, fresh };
}

/**
 * Who set `field` and when, from a key's audit history (newest first), on either side: the newest
 * entry that changed it, not counting a sync's pull or push entries (a pull copied the value from
 * elsewhere; a push's entry records what was sent away); null when none did.
 */
export function fieldChangeOf(
  entries: readonly AuditEntryDto[],
  field: SyncedField,
): { at: number; by: string } | null {
  for (const entry of entries) {
    if (!(field in entry.changes) || entry.action === "sync-pull" || entry.action === "sync-push") continue;
    const at = parseApiDateTime(entry.time);
    if (at === null) continue;
    return { at, by: entry.actor };
  }
  return null;
}

/**
 * Asks the remote's audit history who set the conflicting values the pull saw first (up to
 * MAX_ORIGINS_ASKED keys). Best effort: a remote without a history, or one that refuses or fails
 * this question, leaves the origin at "seen at", and the run goes on.
 */
export async function askConflictOrigins(context: RunContext): Promise<void> {
  for (const found of context.freshConflicts.slice(0, MAX_ORIGINS_ASKED)) {
    if (context.stopped()) return;
    let entries: readonly AuditEntryDto[];
    try {
      const history = await context.client.keyHistory(found.remoteKey, HISTORY_READ);
      if (!history) return; // the remote keeps no history: no other key of it has one
      entries = history.entries;
    } catch {
      continue;
    }
    await context.store.write(async (tx) => {
      const state = await tx.sync.keyState(found.apiKeyId);
      if (!state?.conflictOrigin) return;
      const origin = { ...state.conflictOrigin };
      for (const field of found.fields) {
        const seen = origin[field];
        const change = fieldChangeOf(entries, field);
        if (seen && change) origin[field] = { ...seen, ...change };
      }
      await tx.sync.setConflictOrigin(found.apiKeyId, origin);
    });
  }
}
