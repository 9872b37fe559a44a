import type { AuditChange } from "../../shared/audit.ts";
import type { StoredApiKey } from "../service/domain/apiKeyRules.ts";
import { type AuditOrigin, fieldChanges } from "../service/domain/auditEntries.ts";
import type { RunContext } from "./runContext.ts";
import type { Fields } from "./syncedFields.ts";

/**
 * The audit entries of a sync run, appended in the transaction of the write they record. A run
 * acts for the link's account: the entry names its username, channel sync, and the remote's
 * origin as the address (where the change came from, or went to).
 */
export function syncOrigin(context: RunContext): AuditOrigin {
  const account = context.data.accounts.byId(context.link.accountId);
  let address: string | null = null;
  try {
    address = new URL(context.link.remoteBaseUrl).origin;
  } catch {
    // A link's URL was checked when it was made; an unreadable one is recorded without it.
  }
  return { actor: account?.username ?? "unknown", channel: "sync", address, reason: null };
}

/** A key created or changed here from the remote's copy (before null: mirrored as new). */
export function recordPulled(context: RunContext, before: Fields | null, after: StoredApiKey): void {
  record(context, "sync-pull", after, fieldChanges(before, after));
}

/** A local change the remote accepted: the fields sent, from what the remote had to what it has now. */
export function recordPushed(
  context: RunContext,
  key: Pick<StoredApiKey, "key" | "accountId">,
  remoteBefore: Fields | null,
  sent: Fields,
): void {
  record(context, "sync-push", key, fieldChanges(remoteBefore, sent));
}

function record(
  context: RunContext,
  action: "sync-pull" | "sync-push",
  key: Pick<StoredApiKey, "key" | "accountId">,
  changes: Record<string, AuditChange>,
): void {
  if (Object.keys(changes).length === 0) return;
  context.data.audit.append({
    at: context.now(),
    accountId: key.accountId,
    ...syncOrigin(context),
    action,
    key: key.key,
    changes,
  });
}
