import { SYNCED_FIELDS, type SyncedField } from "../../shared/sync.ts";
import { type Fields, sameValue, withField } from "./syncedFields.ts";

/**
 * Three-way merge of one key, field by field, against the state both sides last agreed on:
 * - only the remote changed a field → it is taken locally;
 * - only this side changed it → it stays, to be pushed;
 * - both changed it to the same value → agreed;
 * - both changed it differently → a conflict: neither side is touched until the user decides.
 * validFrom and validTo are one window: a merge that would combine one side's start with the
 * other side's end into an empty window makes both fields a conflict instead.
 */

export interface MergeOutcome {
  /** The local fields after taking the remote's changes. */
  local: Fields;
  /** The new agreed state. */
  base: Fields;
  /** Fields taken from the remote (they need not be pushed any more). */
  taken: SyncedField[];
  /** Fields both sides changed to the same value. */
  agreed: SyncedField[];
  /** Field → the remote's value, for fields changed differently on both sides. */
  conflicts: Partial<Record<SyncedField, Fields[SyncedField]>>;
}

const WINDOW: readonly SyncedField[] = ["validFrom", "validTo"];

export function mergeKey(base: Fields, local: Fields, remote: Fields): MergeOutcome {
  let nextLocal = local;
  let nextBase = base;
  const taken: SyncedField[] = [];
  const agreed: SyncedField[] = [];
  const conflicts: MergeOutcome["conflicts"] = {};
  for (const field of SYNCED_FIELDS) {
    if (sameValue(field, remote, base)) continue;
    if (sameValue(field, local, base)) {
      nextLocal = withField(nextLocal, field, remote);
      nextBase = withField(nextBase, field, remote);
      taken.push(field);
    } else if (sameValue(field, local, remote)) {
      nextBase = withField(nextBase, field, remote);
      agreed.push(field);
    } else {
      conflicts[field] = remote[field];
    }
  }
  const { validFrom, validTo } = nextLocal;
  if (
    validFrom !== null &&
    validTo !== null &&
    validTo <= validFrom &&
    taken.some((f) => WINDOW.includes(f))
  ) {
    // Undo the window half taken from the remote and hold both halves for the user.
    for (const field of WINDOW) {
      if (taken.includes(field)) {
        nextLocal = withField(nextLocal, field, local);
        nextBase = withField(nextBase, field, base);
        taken.splice(taken.indexOf(field), 1);
      }
      if (!sameValue(field, local, remote)) conflicts[field] = remote[field];
    }
  }
  return { local: nextLocal, base: nextBase, taken, agreed, conflicts };
}
