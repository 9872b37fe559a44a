import type { ApiKeyDto } from "../../shared/apiKeys.ts";
import { KEY_ID_PATTERN } from "../../shared/apiKeys.ts";
import { SYNCED_FIELDS, type SyncedField } from "../../shared/sync.ts";
import { newKeyId } from "../service/domain/identifiers.ts";
import type { Account } from "../service/store/accountStore.ts";
import type { RunContext } from "./runContext.ts";
import { changedFields, type Fields, fieldsOfDto, sameValue } from "./syncedFields.ts";
import type { OutboxEntry, SyncKeyState } from "./syncStore.ts";
import { mergeKey } from "./threeWayMerge.ts";

/** Keys written per transaction: a pull of 10,000 keys never holds the database for long. */
const CHUNK = 500;

/** A create's answer was lost when the remote has a key that matches what was sent, except `enabled`. */
const CLAIM_FIELDS: readonly SyncedField[] = SYNCED_FIELDS.filter((field) => field !== "enabled");

export function matchesSent(sent: Fields, remote: Fields): boolean {
  return CLAIM_FIELDS.every((field) => sameValue(field, sent, remote));
}

/**
 * Mirrors the remote's keys into the linked local account, one chunk per transaction:
 * - a linked key is merged field by field with its last agreed state (threeWayMerge);
 * - a remote key that matches a create sent earlier whose answer never came is claimed by it
 *   (no second copy);
 * - any other remote key is added locally, publicApiKey included, keeping the remote's key id
 *   when it is free here;
 * - a key of this account that already has the remote key's publicApiKey (from an earlier link)
 *   is linked again, and its local differences are queued;
 * - a linked key the remote no longer lists is flagged, never deleted.
 * Local writes made here bypass the outbox: they come from the remote.
 */
export async function pullKeys(context: RunContext, remoteKeys: readonly ApiKeyDto[]): Promise<void> {
  const { data, store, link } = context;
  const account = data.accounts.byId(link.accountId) as Account;
  const byRemoteKey = new Map<string, SyncKeyState>();
  for (const state of store.keyStates(link.id)) if (state.remoteKey) byRemoteKey.set(state.remoteKey, state);
  const uncertainCreates = (): OutboxEntry[] =>
    store
      .entries(link.id)
      .filter((entry) => entry.kind === "create" && !entry.failed && entry.attempts > 0 && entry.sentBody);

  context.progress({ phase: "pull", done: 0, total: remoteKeys.length });
  for (let start = 0; start < remoteKeys.length; start += CHUNK) {
    if (context.stopped()) return;
    const chunk = remoteKeys.slice(start, start + CHUNK);
    await data.writes.run(() => {
      let claimable = uncertainCreates();
      for (const remote of chunk) {
        const parsed = fieldsOfDto(remote);
        if (!parsed.ok) {
          context.problem(`remote key ${remote.key} was not mirrored: ${parsed.reason}`);
          continue;
        }
        const state = byRemoteKey.get(remote.key);
        if (state) {
          mergeLinkedKey(context, state, remote, parsed.fields);
          continue;
        }
        const claim = claimable.find((entry) => matchesSent(entry.sentBody as Fields, parsed.fields));
        if (claim) {
          claimCreate(context, claim, remote, parsed.fields);
          claimable = claimable.filter((entry) => entry !== claim);
          byRemoteKey.set(remote.key, store.keyState(claim.apiKeyId) as SyncKeyState);
          continue;
        }
        mirrorNewKey(context, account, remote, parsed.fields);
      }
    });
    context.progress({
      phase: "pull",
      done: Math.min(start + CHUNK, remoteKeys.length),
      total: remoteKeys.length,
    });
  }

  const listed = new Set(remoteKeys.map((key) => key.key));
  await data.writes.run(() => {
    for (const state of store.keyStates(link.id)) {
      if (state.remoteKey === null) continue;
      const missing = !listed.has(state.remoteKey);
      if (missing !== state.remoteMissing) store.setRemoteMissing(state.apiKeyId, missing);
    }
  });
}

function mergeLinkedKey(
  context: RunContext,
  state: SyncKeyState,
  remote: ApiKeyDto,
  remoteFields: Fields,
): void {
  const { data, store } = context;
  let local = data.apiKeys.byId(state.apiKeyId);
  if (!local) return;
  const base = state.base ?? remoteFields;
  const outcome = mergeKey(base, local, remoteFields);
  if (outcome.taken.length > 0) local = data.apiKeys.update(local, outcome.local, context.now());
  if (changedFields(base, outcome.base).length > 0 || state.base === null)
    store.setBase(state.apiKeyId, outcome.base);
  // Taken or agreed fields have nothing left to push, whatever the outbox held for them.
  store.dropFields(state.apiKeyId, [...outcome.taken, ...outcome.agreed]);
  const conflicts = Object.keys(outcome.conflicts).length > 0 ? outcome.conflicts : null;
  if (JSON.stringify(conflicts) !== JSON.stringify(state.conflict))
    store.setConflict(state.apiKeyId, conflicts);
  if (state.remoteMissing) store.setRemoteMissing(state.apiKeyId, false);
  if (remote.publicApiKey !== local.publicApiKey) adoptPublicApiKey(context, local.id, remote.publicApiKey);
}

/** A create whose answer was lost: the remote's key becomes the local key's remote twin. */
export function claimCreate(
  context: RunContext,
  entry: OutboxEntry,
  remote: ApiKeyDto,
  remoteFields: Fields,
): void {
  const { data, store } = context;
  const local = data.apiKeys.byId(entry.apiKeyId);
  if (!local) return;
  store.setRemoteKey(entry.apiKeyId, remote.key, remoteFields);
  adoptPublicApiKey(context, local.id, remote.publicApiKey);
  // The create is done. What changed locally since (or `enabled`, which a create cannot set)
  // goes out as one update that folds in the key's earlier update entries, refused ones included.
  const later = store.entriesOfKey(entry.apiKeyId).filter((other) => other.kind === "update");
  store.deleteEntries([entry.id, ...later.map((other) => other.id)]);
  queueDifferences(context, entry.apiKeyId, remoteFields, local);
}

/** Queues an update of the fields where the local key differs from what the remote holds. */
function queueDifferences(context: RunContext, apiKeyId: number, remote: Fields, local: Fields): void {
  const differing = changedFields(remote, local);
  if (differing.length === 0) return;
  context.store.enqueue({
    linkId: context.link.id,
    apiKeyId,
    kind: "update",
    fields: differing,
    now: context.now(),
  });
}

/**
 * The remote's publicApiKey becomes the local one, so an app under test uses one value against
 * both services. Refused when another local key already has that value.
 */
function adoptPublicApiKey(context: RunContext, apiKeyId: number, publicApiKey: string): void {
  const { data } = context;
  const local = data.apiKeys.byId(apiKeyId);
  if (!local || local.publicApiKey === publicApiKey) return;
  const holder = data.apiKeys.findByPublicApiKey(publicApiKey);
  if (holder) {
    context.problem(
      `key ${local.key} keeps its own publicApiKey: the remote's value is already key ${holder.key}'s here`,
    );
    return;
  }
  data.apiKeys.replacePublicApiKey(local, publicApiKey, context.now());
}

function mirrorNewKey(context: RunContext, account: Account, remote: ApiKeyDto, fields: Fields): void {
  const { data, store, link } = context;
  const holder = data.apiKeys.findByPublicApiKey(remote.publicApiKey);
  if (holder && holder.accountId === account.id && !store.keyState(holder.id)) {
    // A key of this account from an earlier link: linked again; what was changed here since goes out.
    store.insertKeyState({ apiKeyId: holder.id, linkId: link.id, remoteKey: remote.key, base: fields });
    queueDifferences(context, holder.id, fields, holder);
    return;
  }
  if (holder) {
    // Named only when the link's account manages the holder: otherwise the text would tell whoever
    // reads the link (a sub-account) the key and account ids of an account it cannot see.
    const visible = data.accounts.manages(account.id, holder.accountId);
    context.problem(
      visible
        ? `remote key ${remote.key} was not mirrored: its publicApiKey is already key ${holder.key}'s here (in account ${holder.accountKey})`
        : `a remote key was not mirrored: its publicApiKey already belongs to a key of another account of this service`,
    );
    return;
  }
  const key =
    KEY_ID_PATTERN.test(remote.key) && !data.apiKeys.keyIdTaken(remote.key) ? remote.key : newKeyId();
  const created = data.apiKeys.insert(
    account.id,
    account.accountKey,
    { key, publicApiKey: remote.publicApiKey },
    fields,
    context.now(),
  );
  store.insertKeyState({ apiKeyId: created.id, linkId: link.id, remoteKey: remote.key, base: fields });
}
