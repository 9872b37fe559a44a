import { randomUUID } from "node:crypto";
import type { StoredApiKey } from "../service/domain/apiKeyRecords.ts";
import type { AuditOrigin } from "../service/domain/auditEntries.ts";
import type { KeyWriteJournal } from "../service/domain/keyWriteJournal.ts";
import type { StoreWrite } from "../service/store/store.ts";
import { changedFields } from "./syncedFields.ts";

/**
 * Records local changes of linked keys in the outbox, through the `tx` of the API write itself:
 * a change the service acknowledged is in the outbox too, or the write did not happen.
 * - A key created in a linked account becomes a linked key with a pending create (its
 *   Idempotency-Key is fixed now, so every retry of it is the same request).
 * - An update of a linked key queues the fields that changed. Keys created before the link
 *   stay local-only and queue nothing until they are pushed (SyncEngine.pushLocalOnly).
 * `onQueued` is told inside the write (it only plans a run).
 */
export function createOutboxJournal(now: () => number, onQueued: (linkId: number) => void): KeyWriteJournal {
  return {
    async created(tx: StoreWrite, key: StoredApiKey, origin?: AuditOrigin) {
      const link = await tx.sync.linkOfAccount(key.accountId);
      if (!link) return;
      if (await tx.sync.queueCreate(link.id, key.id, randomUUID(), now(), origin?.reason ?? null)) {
        onQueued(link.id);
      }
    },
    async updated(tx: StoreWrite, before: StoredApiKey, after: StoredApiKey, origin?: AuditOrigin) {
      const state = await tx.sync.keyState(after.id);
      if (!state) return;
      const fields = changedFields(before, after);
      if (fields.length === 0) return;
      // Why the change was made (a rotation, a bulk change) goes to the remote with it (Keydesk-Action).
      const reason = origin?.reason ?? null;
      await tx.sync.enqueue({
        linkId: state.linkId,
        apiKeyId: after.id,
        kind: "update",
        fields,
        now: now(),
        reason,
      });
      onQueued(state.linkId);
    },
  };
}
