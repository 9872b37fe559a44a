import type { SyncLink } from "../../domain/syncRecords.ts";
import type { SyncWrites } from "../store.ts";

/**
 * The sync repository of one write transaction, where `linkOfAccount` is read once per account
 * while nothing else of sync is touched: every create asks for its account's link (the outbox
 * journal), and a batch of creates in one account asked the same question once per create, a round
 * trip each. Any other sync call but `queueCreate` (which writes the outbox, not a link) forgets
 * the answers, so a link written in the same transaction is read anew. Reading the answer earlier
 * in the transaction is what one statement of READ COMMITTED may see anyway: a link another
 * replica commits meanwhile is seen by the batch's next write, or by none of it.
 */
export function batchLinkLookups(sync: SyncWrites): SyncWrites {
  const links = new Map<number, Promise<SyncLink | undefined>>();
  const forgetting = Object.fromEntries(
    Object.entries(sync).map(([name, method]) => [
      name,
      name === "queueCreate"
        ? method
        : (...args: unknown[]) => {
            links.clear();
            return (method as (...args: unknown[]) => unknown)(...args);
          },
    ]),
  ) as unknown as SyncWrites;
  forgetting.linkOfAccount = (accountId) => {
    let link = links.get(accountId);
    if (!link) {
      link = sync.linkOfAccount(accountId);
      links.set(accountId, link);
      link.catch(() => links.delete(accountId));
    }
    return link;
  };
  return forgetting;
}
