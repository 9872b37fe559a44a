import type { AuditChange } from "../../shared/audit.ts";
import type { StoredApiKey } from "../service/domain/apiKeyRecords.ts";
import { type AuditOrigin, fieldChanges } from "../service/domain/auditEntries.ts";
import type { StoreWrite } from "../service/store/store.ts";
import type { RunContext } from "./runContext.ts";
import type { Fields } from "./syncedFields.ts";

/**
 * The audit entries of a sync run, appended through the `tx` of the write they record. A run
 * acts for the link's account: the entry names its username, channel sync, and the remote's
 * origin as the address (where the change came from, or went to).
 */
function syncOrigin(context: RunContext): AuditOrigin {
  let address: string | null = null;
  try {
    address = new URL(context.link.remoteBaseUrl).origin;
  } catch {
    // A link's URL was checked when it was made; an unreadable one is recorded without it.
  }
  return { actor: context.account.username, channel: "sync", address, reason: null };
}

/** A key created or changed here from the remote's copy (before null: mirrored as new). */
export function recordPulled(
  context: RunContext,
  tx: StoreWrite,
  before: Fields | null,
  after: StoredApiKey,
): Promise<void> {
  return record(context, tx, "sync-pull", after, fieldChanges(before, after));
}

/** A local change the remote accepted: the fields sent, from what the remote had to what it has now. */
export function recordPushed(
  context: RunContext,
  tx: StoreWrite,
  key: Pick<StoredApiKey, "key" | "accountId">,
  remoteBefore: Fields | null,
  sent: Fields,
): Promise<void> {
  return record(context, tx, "sync-push", key, fieldChanges(remoteBefore, sent));
}

async function record(
  context: RunContext,
  tx: StoreWrite,
  action: "sync-pull" | "sync-push",
  key: Pick<StoredApiKey, "key" | "accountId">,
  changes: Record<string, AuditChange>,
): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  // A key counts once however many of its changes the run made (a create and its follow-up).
  context.tally[action === "sync-pull" ? "pulled" : "pushed"].add(key.key);
  await tx.audit.append({
    at: context.now(),
    accountId: key.accountId,
    ...syncOrigin(context),
    action,
    key: key.key,
    changes,
  });
}
