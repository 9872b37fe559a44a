import type { ApiKeyDto, ApiKeyWithExtrasDto } from "../../shared/apiKeys.ts";
import { KEY_ID_PATTERN } from "../../shared/apiKeys.ts";
import type { AuditReason } from "../../shared/audit.ts";
import { parseApiDateTime } from "../../shared/datetime.ts";
import { SYNCED_FIELDS, type SyncedField } from "../../shared/sync.ts";
import type { KeyPage, KeyServiceClient } from "../client/keyServiceClient.ts";
import { newKeyId } from "../service/domain/identifiers.ts";
import type { OutboxEntry, SyncKeyState } from "../service/domain/syncRecords.ts";
import type { StoreWrite } from "../service/store/store.ts";
import { originsAfterMerge } from "./conflictOrigins.ts";
import { classifyRemoteFailure, LinkFailure } from "./remoteFailure.ts";
import type { RunContext } from "./runContext.ts";
import { recordPulled } from "./syncAudit.ts";
import { changedFields, type Fields, fieldsOfDto, sameValue } from "./syncedFields.ts";
import { mergeKey } from "./threeWayMerge.ts";

/** Keys written per transaction: a pull of 10,000 keys never holds the database for long. */
const CHUNK = 500;

/** A create's answer was lost when the remote has a key that matches what was sent, except `enabled`. */
const CLAIM_FIELDS: readonly SyncedField[] = SYNCED_FIELDS.filter((field) => field !== "enabled");

export function matchesSent(sent: Fields, remote: Fields): boolean {
  return CLAIM_FIELDS.every((field) => sameValue(field, sent, remote));
}

/** Keys asked for per page of the remote's list (a remote may answer fewer). */
const DEFAULT_PAGE_SIZE = 1_000;

/**
 * Keys one pull takes at most (over all pages): a remote that pages without end, with ever new
 * cursors and keys, stops here rather than filling the disk. A single answer was already bounded
 * by its size (256 MB, about 750,000 keys).
 */
const MAX_PULLED_KEYS = 1_000_000;

/** Pages in a row that bring no key not listed before: a remote paging in a loop with fresh cursors. */
const MAX_STALLED_PAGES = 3;

/** One page of the remote's list, as the pull consumes it. */
export interface RemoteKeyPage {
  keys: readonly ApiKeyDto[];
  /** How many keys the remote lists in all, when known (its count route, or a list answered whole). */
  total: number | null;
}

/** What remoteKeyPages needs of the client. */
export type PagingClient = Pick<KeyServiceClient, "listPage" | "countKeys">;

/**
 * The remote account's keys page by page, each page asked for once the one before was consumed
 * (at most one page is held at a time). A remote that ignores paging (a service that answers its
 * whole list) gives one page. The count route is asked only when there is more than one page, to
 * show progress; a remote without it (or failing it) leaves the total unknown until the end.
 * Ends the run with a LinkFailure when a page fails, or when the remote answers a cursor it gave
 * before (it would page in a loop).
 */
export async function* remoteKeyPages(
  client: PagingClient,
  accountKey: string,
  pageSize = DEFAULT_PAGE_SIZE,
): AsyncGenerator<RemoteKeyPage> {
  const limit = Math.min(10_000, Math.max(1, Math.floor(pageSize)));
  const cursors = new Set<string>();
  let cursor: string | undefined;
  let total: number | null = null;
  let read = 0;
  for (let number = 1; ; number++) {
    let page: KeyPage;
    try {
      // created: a copy made here keeps the key's creation time on the remote (our own service
      // says it; a remote that refuses include= is asked again without, and the time is not known).
      page = await client.listPage(accountKey, { include: ["created"] }, { limit, cursor });
    } catch (error) {
      throw pageFailure(error, number, read);
    }
    if (!page.paged) {
      yield { keys: page.keys, total: page.keys.length };
      return;
    }
    read += page.keys.length;
    const next = page.nextCursor;
    if (next === null) {
      yield { keys: page.keys, total: Math.max(total ?? 0, read) };
      return;
    }
    if (cursors.has(next) || next === cursor) {
      throw new LinkFailure({
        kind: "unavailable",
        text: `the remote answered page ${number} of its key list with a cursor it had already given (it pages in a loop); the pull stopped after ${read} keys and flagged nothing`,
      });
    }
    cursors.add(next);
    if (number === 1) total = await countOrNull(client, accountKey);
    yield { keys: page.keys, total };
    cursor = next;
  }
}

/** The remote's count of the account's keys, for progress only: null when it has none or fails. */
async function countOrNull(client: PagingClient, accountKey: string): Promise<number | null> {
  try {
    return await client.countKeys(accountKey, {});
  } catch {
    // The next page tells whether the remote is really failing.
    return null;
  }
}

/** A failed page ends the run; past the first page, the text says how far the pull got. */
function pageFailure(error: unknown, number: number, read: number): LinkFailure {
  const failure = classifyRemoteFailure(error);
  if (number === 1) return new LinkFailure(failure);
  return new LinkFailure({
    ...failure,
    text: `page ${number} of the remote's key list failed after ${read} keys (${failure.text}); the next run reads it again from the start`,
  });
}

/**
 * Mirrors the remote's keys into the linked local account, page by page as they come, one chunk
 * per write:
 * - a linked key is merged field by field with its last agreed state (threeWayMerge);
 * - a remote key that matches a create sent earlier whose answer never came is claimed by it
 *   (no second copy);
 * - any other remote key is added locally, publicApiKey included, keeping the remote's key id
 *   when it is free here;
 * - a key of this account that already has the remote key's publicApiKey (from an earlier link)
 *   is linked again, and its local differences are queued;
 * - once every page was read, a linked key the remote no longer lists is flagged, never deleted
 *   (after a failed page, or a stop, nothing is flagged; a key seen again still loses its flag).
 * Only the remote key ids are kept across pages. Local writes made here bypass the outbox: they
 * come from the remote.
 */
export async function pullKeys(context: RunContext, pages: AsyncIterable<RemoteKeyPage>): Promise<void> {
  const { store, link } = context;
  const byRemoteKey = new Map<string, SyncKeyState>();
  for (const state of await store.sync.keyStates(link.id)) {
    if (state.remoteKey) byRemoteKey.set(state.remoteKey, state);
  }
  const listed = new Set<string>();
  let done = 0;
  let total: number | null = null;
  let stalled = 0;
  const report = () => context.progress({ phase: "pull", done, total: Math.max(total ?? 0, done) });

  context.progress({ phase: "pull", done: 0, total: 0 });
  for await (const page of pages) {
    if (context.stopped()) return;
    if (page.total !== null) total = page.total;
    const before = listed.size;
    for (const remote of page.keys) listed.add(remote.key);
    if (listed.size > MAX_PULLED_KEYS) {
      throw new LinkFailure({
        kind: "unavailable",
        text: `the remote lists more than ${MAX_PULLED_KEYS.toLocaleString("en-US")} keys; the pull stopped and flagged nothing`,
      });
    }
    stalled = listed.size > before ? 0 : stalled + 1;
    if (stalled >= MAX_STALLED_PAGES) {
      throw new LinkFailure({
        kind: "unavailable",
        text: `the remote answered ${stalled} pages in a row without a key it had not listed before (it pages in a loop); the pull stopped after ${listed.size} keys and flagged nothing`,
      });
    }
    for (let start = 0; start < page.keys.length; start += CHUNK) {
      if (context.stopped()) return;
      const chunk = page.keys.slice(start, start + CHUNK);
      await store.write(async (tx) =>
        mergeChunk(context, tx, chunk, byRemoteKey, await tx.sync.uncertainCreates(link.id)),
      );
      done += chunk.length;
      report();
    }
  }
  if (context.stopped()) return;
  total = done;
  report();

  await store.write(async (tx) => {
    for (const state of await tx.sync.keyStates(link.id)) {
      if (state.remoteKey === null) continue;
      const missing = !listed.has(state.remoteKey);
      if (missing !== state.remoteMissing) await tx.sync.setRemoteMissing(state.apiKeyId, missing);
    }
  });
}

/** One chunk of remote keys, in one write. */
async function mergeChunk(
  context: RunContext,
  tx: StoreWrite,
  chunk: readonly ApiKeyDto[],
  byRemoteKey: Map<string, SyncKeyState>,
  uncertain: OutboxEntry[],
): Promise<void> {
  let claimable = uncertain;
  for (const remote of chunk) {
    const parsed = fieldsOfDto(remote);
    if (!parsed.ok) {
      context.problem(`remote key ${remote.key} was not mirrored: ${parsed.reason}`);
      continue;
    }
    const state = byRemoteKey.get(remote.key);
    if (state) {
      await mergeLinkedKey(context, tx, state, remote, parsed.fields);
      continue;
    }
    const claim = claimable.find((entry) => matchesSent(entry.sentBody as Fields, parsed.fields));
    if (claim) {
      await claimCreate(context, tx, claim, remote, parsed.fields);
      claimable = claimable.filter((entry) => entry !== claim);
      byRemoteKey.set(remote.key, (await tx.sync.keyState(claim.apiKeyId)) as SyncKeyState);
      continue;
    }
    const linked = await mirrorNewKey(context, tx, remote, parsed.fields);
    // Listed again on a later page (the remote's pages moved): merged, not mirrored twice.
    if (linked) byRemoteKey.set(remote.key, linked);
  }
}

async function mergeLinkedKey(
  context: RunContext,
  tx: StoreWrite,
  state: SyncKeyState,
  remote: ApiKeyDto,
  remoteFields: Fields,
): Promise<void> {
  let local = await tx.apiKeys.byId(state.apiKeyId);
  if (!local) return;
  const base = state.base ?? remoteFields;
  const outcome = mergeKey(base, local, remoteFields);
  if (outcome.taken.length > 0) {
    const before = local;
    local = await tx.apiKeys.update(local, outcome.local, context.now());
    await recordPulled(context, tx, before, local);
  }
  if (changedFields(base, outcome.base).length > 0 || state.base === null)
    await tx.sync.setBase(state.apiKeyId, outcome.base);
  // Taken or agreed fields have nothing left to push, whatever the outbox held for them.
  await tx.sync.dropFields(state.apiKeyId, [...outcome.taken, ...outcome.agreed]);
  const conflicts = Object.keys(outcome.conflicts).length > 0 ? outcome.conflicts : null;
  const { origin, fresh } = originsAfterMerge(state, conflicts, context.now());
  if (JSON.stringify(conflicts) !== JSON.stringify(state.conflict))
    await tx.sync.setConflict(state.apiKeyId, conflicts);
  if (JSON.stringify(origin) !== JSON.stringify(state.conflictOrigin))
    await tx.sync.setConflictOrigin(state.apiKeyId, origin);
  if (fresh.length > 0)
    context.freshConflicts.push({ apiKeyId: state.apiKeyId, remoteKey: remote.key, fields: fresh });
  if (state.remoteMissing) await tx.sync.setRemoteMissing(state.apiKeyId, false);
  if (remote.publicApiKey !== local.publicApiKey)
    await adoptPublicApiKey(context, tx, local.id, remote.publicApiKey);
}

/** A create whose answer was lost: the remote's key becomes the local key's remote twin. */
export async function claimCreate(
  context: RunContext,
  tx: StoreWrite,
  entry: OutboxEntry,
  remote: ApiKeyDto,
  remoteFields: Fields,
): Promise<void> {
  const local = await tx.apiKeys.byId(entry.apiKeyId);
  if (!local) return;
  await tx.sync.setRemoteKey(entry.apiKeyId, remote.key, remoteFields);
  await adoptPublicApiKey(context, tx, local.id, remote.publicApiKey);
  // The create is done. What changed locally since (or `enabled`, which a create cannot set)
  // goes out as one update that folds in the key's earlier update entries, refused ones included.
  const later = (await tx.sync.entriesOfKey(entry.apiKeyId)).filter((other) => other.kind === "update");
  await tx.sync.deleteEntries([entry.id, ...later.map((other) => other.id)]);
  // The folded update keeps the newest reason of what it folds in (a bulk disable, a rotation).
  const reason = later.reduce<AuditReason | null>((last, other) => other.reason ?? last, null);
  await queueDifferences(context, tx, entry.apiKeyId, remoteFields, local, reason);
}

/** Queues an update of the fields where the local key differs from what the remote holds. */
async function queueDifferences(
  context: RunContext,
  tx: StoreWrite,
  apiKeyId: number,
  remote: Fields,
  local: Fields,
  reason: AuditReason | null = null,
): Promise<void> {
  const differing = changedFields(remote, local);
  if (differing.length === 0) return;
  await tx.sync.enqueue({
    linkId: context.link.id,
    apiKeyId,
    kind: "update",
    fields: differing,
    now: context.now(),
    reason,
  });
}

/**
 * The remote's publicApiKey becomes the local one, so an app under test uses one value against
 * both services. Refused when another local key already has that value.
 */
async function adoptPublicApiKey(
  context: RunContext,
  tx: StoreWrite,
  apiKeyId: number,
  publicApiKey: string,
): Promise<void> {
  const local = await tx.apiKeys.byId(apiKeyId);
  if (!local || local.publicApiKey === publicApiKey) return;
  const holder = await tx.apiKeys.findByPublicApiKey(publicApiKey);
  if (holder) {
    context.problem(
      `key ${local.key} keeps its own publicApiKey: the remote's value is already key ${holder.key}'s here`,
    );
    return;
  }
  await tx.apiKeys.replacePublicApiKey(local, publicApiKey, context.now());
}

/** Mirrors or links the remote key; answers its new link state, or undefined when it was not mirrored. */
async function mirrorNewKey(
  context: RunContext,
  tx: StoreWrite,
  remote: ApiKeyDto,
  fields: Fields,
): Promise<SyncKeyState | undefined> {
  const { account, link } = context;
  const holder = await tx.apiKeys.findByPublicApiKey(remote.publicApiKey);
  if (holder && holder.accountId === account.id && !(await tx.sync.keyState(holder.id))) {
    // A key of this account from an earlier link: linked again; what was changed here since goes out.
    await tx.sync.insertKeyState({
      apiKeyId: holder.id,
      linkId: link.id,
      remoteKey: remote.key,
      base: fields,
    });
    await queueDifferences(context, tx, holder.id, fields, holder);
    return tx.sync.keyState(holder.id);
  }
  if (holder) {
    // Named only when the link's account manages the holder: otherwise the text would tell whoever
    // reads the link (a sub-account) the key and account ids of an account it cannot see.
    const visible = await tx.accounts.manages(account.id, holder.accountId);
    context.problem(
      visible
        ? `remote key ${remote.key} was not mirrored: its publicApiKey is already key ${holder.key}'s here (in account ${holder.accountKey})`
        : `a remote key was not mirrored: its publicApiKey already belongs to a key of another account of this service`,
    );
    return undefined;
  }
  const key =
    KEY_ID_PATTERN.test(remote.key) && !(await tx.apiKeys.keyIdTaken(remote.key)) ? remote.key : newKeyId();
  const created = await tx.apiKeys.insert(
    account.id,
    account.accountKey,
    { key, publicApiKey: remote.publicApiKey },
    fields,
    context.now(),
    // The copy is made now, the key was created on the remote: its time there when the remote
    // said it (our own service answers include=created), else not known. Never the pull's time.
    remoteCreatedAt(remote),
  );
  await tx.sync.insertKeyState({
    apiKeyId: created.id,
    linkId: link.id,
    remoteKey: remote.key,
    base: fields,
  });
  await recordPulled(context, tx, null, created);
  return tx.sync.keyState(created.id);
}

function remoteCreatedAt(remote: ApiKeyDto): number | null {
  const createdAt = (remote as ApiKeyWithExtrasDto).createdAt;
  return typeof createdAt === "string" ? (parseApiDateTime(createdAt) ?? null) : null;
}
