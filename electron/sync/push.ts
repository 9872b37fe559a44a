import type { AuditReason } from "../../shared/audit.ts";
import type { SyncedField } from "../../shared/sync.ts";
import type { OutboxEntry } from "../service/domain/syncRecords.ts";
import { claimCreate, matchesSent } from "./pull.ts";
import { classifyRemoteFailure, LinkFailure } from "./remoteFailure.ts";
import type { RunContext } from "./runContext.ts";
import { recordPushed } from "./syncAudit.ts";
import {
  changedFields,
  createRequestOf,
  type Fields,
  fieldsOfDto,
  syncedFieldsOf,
  updateRequestOf,
  withField,
} from "./syncedFields.ts";

/** A remote call: a refusal of this one operation is returned; anything else ends the run. */
async function call<T>(
  work: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; text: string; status: number }> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    const failure = classifyRemoteFailure(error);
    if (failure.kind !== "refused") throw new LinkFailure(failure);
    return { ok: false, text: failure.text, status: failure.status };
  }
}

/** `call`, counting an attempt on the entries when it fails (creates count theirs before sending). */
async function countingAttempts<T>(
  context: RunContext,
  ids: readonly number[],
  work: () => Promise<T>,
): ReturnType<typeof call<T>> {
  try {
    const answer = await call(work);
    if (!answer.ok) await context.store.write((tx) => tx.sync.recordEntryAttempts(ids, answer.text));
    return answer;
  } catch (error) {
    if (error instanceof LinkFailure && !context.stopped()) {
      await context.store.write((tx) => tx.sync.recordEntryAttempts(ids, error.failure.text));
    }
    throw error;
  }
}

/** The outbox grouped by key, keys in the order of their oldest pending change. */
function pendingByKey(entries: readonly OutboxEntry[]): OutboxEntry[][] {
  const groups = new Map<number, OutboxEntry[]>();
  for (const entry of entries) {
    if (entry.failed) continue;
    const group = groups.get(entry.apiKeyId);
    if (group) group.push(entry);
    else groups.set(entry.apiKeyId, [entry]);
  }
  return [...groups.values()];
}

/**
 * Sends the outbox, key by key in the order of their oldest change (up to PUSH_CONCURRENCY keys
 * in flight). A key's pending changes go
 * out together as one create or one update of the fields that changed, with their current local
 * values. A conflict holds its fields back; a refusal marks that key's entries failed and the
 * others go on; credentials, throttling or no answer end the run (the entries stay queued).
 */
export async function pushOutbox(context: RunContext): Promise<void> {
  const groups = pendingByKey(await context.store.sync.entries(context.link.id));
  context.progress({ phase: "push", done: 0, total: groups.length });
  let next = 0;
  let done = 0;
  let failure: LinkFailure | undefined;
  // Keys are taken in order; a few are in flight at once so that both sides' group commits
  // share their disk syncs. One key's changes are never in flight twice.
  const worker = async () => {
    while (next < groups.length && !failure && !context.stopped()) {
      const group = groups[next++] as OutboxEntry[];
      try {
        const create = group.find((entry) => entry.kind === "create");
        if (create) await pushCreate(context, create, group);
        else await pushUpdate(context, group);
      } catch (error) {
        if (!(error instanceof LinkFailure)) throw error;
        failure ??= error;
      }
      context.progress({ phase: "push", done: ++done, total: groups.length });
    }
  };
  await Promise.all(Array.from({ length: PUSH_CONCURRENCY }, worker));
  if (failure) throw failure;
}

/**
 * The validFrom a key disabled here is created with on the remote: the API's create cannot set
 * `enabled`, so the remote copy is born enabled, and until the update that disables it lands (it
 * goes right after the create, and survives crashes and lost answers in the outbox) it must not
 * authorize anything. A window that opens at the end of year 9999 (the last day the API's
 * datetimes reach) does that on any service that checks validity; the update then sets
 * enabled=false and the key's true validFrom and validTo together.
 * @internal Exported for tests.
 */
export const NOT_YET_VALID_FROM = Date.UTC(9999, 11, 31);

/**
 * The fields a create sends for a local key: the key itself when it is enabled; when it is
 * disabled, its window replaced by one that never opens (validTo left out: it must be after
 * validFrom). What is sent is recorded as sent, so a lost answer is still recognized.
 * @internal Exported for tests.
 */
export function createFieldsOf(local: Fields): Fields {
  if (local.enabled) return local;
  return { ...local, validFrom: NOT_YET_VALID_FROM, validTo: null };
}

/** Keys pushed at the same time. */
const PUSH_CONCURRENCY = 8;

async function pushCreate(
  context: RunContext,
  entry: OutboxEntry,
  group: readonly OutboxEntry[],
): Promise<void> {
  const { store, link, client } = context;
  const local = await store.apiKeys.byId(entry.apiKeyId);
  if (!local) return;
  if (entry.attempts > 0 && entry.sentBody && (await claimEarlierAttempt(context, entry, entry.sentBody))) {
    await pushFollowUp(context, entry.apiKeyId);
    return;
  }
  const sent = createFieldsOf(syncedFieldsOf(local));
  // On disk before it is sent: after a crash the next pull recognizes the key if it was created.
  await store.write((tx) => tx.sync.recordCreateAttempt(entry.id, sent, entry.fields, entry.reason));
  const answer = await call(() =>
    client.create(link.remoteAccountKey, createRequestOf(sent), {
      ...(entry.idempotencyKey !== null && { idempotencyKey: entry.idempotencyKey }),
      ...(entry.reason !== null && { action: entry.reason }),
    }),
  );
  if (!answer.ok) {
    await store.write((tx) =>
      tx.sync.markFailed(
        group.map((other) => other.id),
        `create refused: ${answer.text}`,
      ),
    );
    return;
  }
  const remote = fieldsOfDto(answer.value);
  if (!remote.ok) {
    context.problem(`the remote created key ${answer.value.key} for ${local.key} but ${remote.reason}`);
    return;
  }
  // Also queues `enabled` (a create cannot set it), the true window of a key created not yet
  // valid, and changes made while the create was on its way.
  await store.write(async (tx) => {
    await recordPushed(context, tx, local, null, remote.fields);
    await claimCreate(context, tx, entry, answer.value, remote.fields);
  });
  await pushFollowUp(context, entry.apiKeyId);
}

/** After a create: the key's pending updates (the follow-up the create queued among them). */
async function pushFollowUp(context: RunContext, apiKeyId: number): Promise<void> {
  const followUp = (await context.store.sync.entriesOfKey(apiKeyId)).filter((other) => !other.failed);
  if (followUp.length > 0) await pushUpdate(context, followUp);
}

/**
 * An earlier attempt of this create may have reached the remote without its answer reaching
 * us. Before sending it again, look for that key by name (a remote that ignores
 * Idempotency-Key would otherwise create a second one).
 */
async function claimEarlierAttempt(context: RunContext, entry: OutboxEntry, sent: Fields): Promise<boolean> {
  const { store, link, client } = context;
  const found = await call(() => client.list(link.remoteAccountKey, { name: sent.name }));
  if (!found.ok) return false;
  for (const candidate of found.value) {
    const fields = fieldsOfDto(candidate);
    if (!fields.ok || !matchesSent(sent, fields.fields)) continue;
    if (await store.sync.remoteKeyLinked(link.id, candidate.key)) continue;
    await store.write((tx) => claimCreate(context, tx, entry, candidate, fields.fields));
    return true;
  }
  return false;
}

async function pushUpdate(context: RunContext, group: readonly OutboxEntry[]): Promise<void> {
  const { store, link, client } = context;
  const apiKeyId = (group[0] as OutboxEntry).apiKeyId;
  const state = await store.sync.keyState(apiKeyId);
  const local = await store.apiKeys.byId(apiKeyId);
  if (!state || !local) {
    await store.write((tx) => tx.sync.deleteEntries(group.map((entry) => entry.id)));
    return;
  }
  // Waits for its create, which failed or is still to go.
  if (state.remoteKey === null || state.base === null) return;
  const ids = group.map((entry) => entry.id);
  if (state.remoteMissing) {
    await store.write((tx) =>
      tx.sync.markFailed(ids, `the remote no longer has key ${state.remoteKey}; the change cannot be pushed`),
    );
    return;
  }
  const held = new Set(Object.keys(state.conflict ?? {}));
  const fields = [...new Set(group.flatMap((entry) => entry.fields))].filter((field) => !held.has(field));
  if (fields.length === 0) return;
  const upTo = Math.max(...ids);
  // The newest reason among the changes sent together: a rotation's or a bulk change's last word.
  const reason = group.reduce<AuditReason | null>((last, entry) => entry.reason ?? last, null);
  const answer = await countingAttempts(context, ids, () =>
    client.update(link.remoteAccountKey, state.remoteKey as string, updateRequestOf(local, fields), {
      ...(reason !== null && { action: reason }),
    }),
  );
  if (!answer.ok) {
    await store.write(async (tx) => {
      if (answer.status === 404) await tx.sync.setRemoteMissing(apiKeyId, true);
      await tx.sync.markFailed(ids, `update refused: ${answer.text}`);
    });
    return;
  }
  const remote = fieldsOfDto(answer.value);
  if (!remote.ok) {
    context.problem(`the remote answered key ${state.remoteKey} with a key that ${remote.reason}`);
    return;
  }
  await store.write(async (tx) => {
    const current = await tx.sync.keyState(apiKeyId);
    const now = await tx.apiKeys.byId(apiKeyId);
    if (!current?.base || !now) return;
    let base = current.base;
    let adopted: Fields = now;
    const spelledOtherwise: SyncedField[] = [];
    for (const field of fields) {
      base = withField(base, field, remote.fields);
      // The remote stored it in its own spelling: take that, or the next pull would see a change.
      if (changedFields(local, now).includes(field)) continue;
      if (changedFields(now, remote.fields).includes(field)) {
        adopted = withField(adopted, field, remote.fields);
        spelledOtherwise.push(field);
      }
    }
    await recordPushed(context, tx, now, current.base, base);
    await tx.sync.setBase(apiKeyId, base);
    if (spelledOtherwise.length > 0) await tx.apiKeys.update(now, adopted, context.now());
    await tx.sync.dropFields(apiKeyId, fields, upTo);
  });
}
