import type { AccountDto, ProfileDto } from "../../../../shared/bridge.ts";
import { parseApiDateTime } from "../../../../shared/datetime.ts";
import type {
  SyncedField,
  SyncKeyDto,
  SyncKeyState,
  SyncLinkDto,
  SyncProgressDto,
} from "../../../../shared/sync.ts";
import { linkUses } from "../../../../shared/syncLinks.ts";
import { formatLocal, formatRelative } from "../../time.ts";

/** What the Sync view says about links, keys and values. Pure, so that it is tested without a browser. */

export interface StateLook {
  label: string;
  color: string;
}

/**
 * The badge of a link: a link paused by a 401 says it needs credentials; an idle link says whether
 * anything waits for the user (conflicts, failed changes) or for the next run (pending changes).
 */
export function linkStateLook(
  link: Pick<SyncLinkDto, "state" | "pausedReason"> &
    Partial<Pick<SyncLinkDto, "pending" | "failed" | "conflicts">>,
): StateLook {
  switch (link.state) {
    case "running":
      return { label: "Syncing", color: "blue.9" };
    case "backing-off":
      return { label: "Retrying later", color: "orange.9" };
    case "paused":
      return link.pausedReason === "credentials"
        ? { label: "Needs credentials", color: "red.9" }
        : { label: "Paused", color: "gray.8" };
    default:
      if ((link.conflicts ?? 0) > 0 || (link.failed ?? 0) > 0)
        return { label: "Needs attention", color: "red.9" };
      if ((link.pending ?? 0) > 0) return { label: "Changes waiting", color: "blue.9" };
      return { label: "Up to date", color: "green.9" };
  }
}

/**
 * The badge of a finished run that went through: green only when it left nothing to choose; a run
 * that ended with keys in conflict says how many, in the warning colour (those keys did not sync).
 */
export function runResultLook(run: Pick<SyncLinkDto["recentRuns"][number], "conflicts">): StateLook {
  if (run.conflicts === 0) return { label: "Synced", color: "green.9" };
  return {
    label: `Synced, ${run.conflicts} ${run.conflicts === 1 ? "conflict" : "conflicts"}`,
    color: "orange.9",
  };
}

/**
 * The Keys table's badge of a key of a linked account; null for the states that need no attention.
 * "Local only": a key the link does not carry (made before it), which the admin may want to push.
 */
export function keySyncLook(state: SyncKeyState | undefined): StateLook | null {
  switch (state) {
    case "conflict":
      return { label: "Conflict", color: "red.9" };
    case "pending":
      return { label: "Sync pending", color: "blue.9" };
    case "remote-missing":
      return { label: "Gone from remote", color: "orange.9" };
    case "failed":
      return { label: "Sync failed", color: "red.9" };
    case "local-only":
      return { label: "Local only", color: "gray.8" };
    default:
      return null;
  }
}

/** Why a key shows its sync mark, in words, for the mark's tooltip. */
export function keySyncWhy(state: SyncKeyState): string {
  switch (state) {
    case "conflict":
      return "A field changed both here and on the remote: choose which to keep.";
    case "pending":
      return "Local changes wait to go out at the next sync.";
    case "remote-missing":
      return "The key was deleted or is no longer visible on the remote.";
    case "failed":
      return "The last attempt to send its changes failed.";
    case "local-only":
      return "It was here before the account was linked: it is not on the remote until you push it.";
    default:
      return "";
  }
}

export const FIELD_LABELS: Record<SyncedField, string> = {
  name: "Name",
  allowedIPs: "Allowed IPs",
  permissions: "Permissions",
  validFrom: "Valid from",
  validTo: "Valid to",
  enabled: "Enabled",
};

/** A field's API value as a person reads it. */
export function formatFieldValue(field: SyncedField, value: unknown): string {
  if (value === null || value === undefined) {
    if (field === "allowedIPs") return "Any IP";
    if (field === "validFrom" || field === "validTo") return "(not set)";
    return "(none)";
  }
  if (Array.isArray(value)) return value.length === 0 && field === "allowedIPs" ? "Any IP" : value.join(", ");
  if (typeof value === "boolean")
    return field === "enabled" ? (value ? "enabled" : "disabled") : String(value);
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/**
 * A time of the contract (the API's datetime format, or ISO) as milliseconds, or null.
 * @internal Exported for tests.
 */
export function parseSyncTime(text: string | null): number | null {
  if (text === null) return null;
  const api = parseApiDateTime(text);
  if (api !== null) return api;
  const iso = Date.parse(text);
  return Number.isNaN(iso) ? null : iso;
}

/**
 * "3 min ago", "in 20 s", "just now": a time relative to now (the console's one convention).
 * @internal Exported for tests.
 */
export const relativeTime = (time: number, now: number): string => formatRelative(time, now);

/**
 * A time as shown on a link card: relative ("3 min ago"), with the local time and its zone for the
 * hover; `never` (and no hover) when there is none.
 */
export function formatSyncTime(
  text: string | null,
  now: number,
  never = "never",
): { text: string; title?: string } {
  const time = parseSyncTime(text);
  if (time === null) return { text: text ?? never };
  return { text: relativeTime(time, now), title: formatLocal(time) };
}

/**
 * A link's next run, on its card. Never "just now": a retry a second or two ahead is "retry in 2 s"
 * (a backoff starts at 1 s, which "just now" hid), one whose time has come is "retrying now", and a
 * link that backs off says "retry" so the admin knows it is the failure's retry, not the interval.
 */
export function nextRunText(
  link: Pick<SyncLinkDto, "state" | "nextRunAt">,
  now: number,
): { text: string; title?: string } {
  const time = parseSyncTime(link.nextRunAt);
  if (time === null) return { text: link.state === "paused" ? "paused" : "not scheduled" };
  const retry = link.state === "backing-off";
  const seconds = Math.ceil((time - now) / 1000);
  const title = formatLocal(time);
  if (seconds <= 0) return { text: retry ? "retrying now" : "due now", title };
  const ahead = seconds < 5 ? `in ${seconds} s` : relativeTime(time, now);
  return { text: retry ? `retry ${ahead}` : ahead, title };
}

type FieldConflictDto = SyncKeyDto["conflicts"][number];

/**
 * Who made the local side of a conflict and when ("by owner, 3 min ago"), with the local time for
 * the hover; says so when the local history does not name the change.
 */
export function mineChangeText(
  change: FieldConflictDto["mineChange"],
  now: number,
): { text: string; title?: string } {
  const time = change && parseSyncTime(change.at);
  if (!change || time === null) return { text: "change not in the local history" };
  return { text: `by ${change.by}, ${relativeTime(time, now)}`, title: formatLocal(time) };
}

/**
 * Where the remote side of a conflict came from: who set it there and when, as the remote's audit
 * says; a remote that names no author (the key-management API answers none) gives only when the
 * value was seen here.
 */
export function theirsChangeText(
  change: FieldConflictDto["theirsChange"],
  now: number,
): { text: string; title?: string } {
  if (!change) return { text: "the remote names no author" };
  const at = parseSyncTime(change.at);
  if (change.by !== null && at !== null)
    return { text: `by ${change.by}, ${relativeTime(at, now)}`, title: formatLocal(at) };
  const seen = parseSyncTime(change.seenAt);
  if (seen === null) return { text: "the remote names no author" };
  return { text: `seen ${relativeTime(seen, now)}; the remote names no author`, title: formatLocal(seen) };
}

/** Progress as a percentage (0 when the total is not known yet). */
export function progressPercent(progress: SyncProgressDto | null): number {
  if (!progress || progress.total <= 0) return 0;
  return Math.min(100, Math.round((progress.done / progress.total) * 100));
}

export function progressText(progress: SyncProgressDto | null): string {
  if (!progress) return "Starting…";
  const phase = progress.phase === "pull" ? "Pulling remote keys" : "Pushing local changes";
  return progress.total > 0 ? `${phase}: ${progress.done} of ${progress.total}` : `${phase}…`;
}

/** The remote profile whose credentials a link uses (the one to edit when the remote refused them). */
export function profileOfLink(
  link: Pick<SyncLinkDto, "remote">,
  profiles: readonly ProfileDto[],
): ProfileDto | undefined {
  return profiles.find((profile) => profile.kind === "remote" && linkUses(link, profile));
}

/** "owner (own account)" or "qa (sub-account)" for a local accountKey; the key itself when unknown. */
export function localAccountLabel(accountKey: string, accounts: readonly AccountDto[] | undefined): string {
  const account = accounts?.find((each) => each.accountKey === accountKey);
  if (!account) return accountKey;
  return `${account.username} (${account.parentAccountKey === null ? "own account" : "sub-account"})`;
}

/** "own account" for `_`, the accountKey otherwise. */
function remoteAccountLabel(accountKey: string): string {
  return accountKey === "_" ? "own account" : `account ${accountKey}`;
}

/**
 * A link as its card names it: `title` pairs the local account with the remote *profile* (the name
 * the admin gave it in Settings; the remote's host when no one profile has the link's address and
 * username), `detail` says which remote user, address and account that is.
 */
export function linkTitle(
  link: SyncLinkDto,
  accounts: readonly AccountDto[] | undefined,
  profiles: readonly ProfileDto[],
): { title: string; detail: string } {
  return {
    title: `${localAccountLabel(link.accountKey, accounts)} ↔ ${remoteOfLink(link, profiles).name}`,
    detail: `${link.remote.username} at ${link.remote.baseUrl} (${remoteAccountLabel(link.remote.accountKey)})`,
  };
}

/** Whether any link is running (the view then refreshes often, for its progress). */
export function anyRunning(links: readonly SyncLinkDto[] | undefined): boolean {
  return links?.some((link) => link.state === "running") ?? false;
}

/**
 * What a new list of links makes stale: `keys` when a run ended or began since the last list (the
 * key lists may have new or changed keys), `details` (per-link keys and outbox) when any count changed.
 */
export function staleAfter(
  previous: readonly SyncLinkDto[] | undefined,
  next: readonly SyncLinkDto[],
): { keys: boolean; details: boolean } {
  if (previous === undefined) return { keys: false, details: false };
  if (previous.length !== next.length) return { keys: true, details: true };
  let keys = false;
  let details = false;
  for (const link of next) {
    const before = previous.find((each) => each.id === link.id);
    if (!before) return { keys: true, details: true };
    if (before.lastAttemptAt !== link.lastAttemptAt || before.state !== link.state) keys = true;
    if (
      keys ||
      before.pending !== link.pending ||
      before.failed !== link.failed ||
      before.conflicts !== link.conflicts ||
      before.remoteMissing !== link.remoteMissing ||
      before.linkedKeys !== link.linkedKeys
    ) {
      details = true;
    }
  }
  return { keys, details };
}

/** The local account's links (the Keys table badges): `_` stands for the own account. */
export function linksOfAccount(
  links: readonly SyncLinkDto[] | undefined,
  accountKey: string,
  accounts: readonly AccountDto[] | undefined,
): SyncLinkDto[] {
  if (!links || !accounts) return [];
  const real =
    accountKey === "_"
      ? accounts.find((account) => account.parentAccountKey === null)?.accountKey
      : accountKey;
  return real === undefined ? [] : links.filter((link) => link.accountKey === real);
}

/** The remote a link carries keys to, in words: `name` for a badge, `full` for a sentence. */
export interface SyncRemote {
  /** The profile that has the link's credentials, else the remote's host. */
  name: string;
  /** "Team (https://team.example)", or "admin at https://team.example" without a profile. */
  full: string;
}

/** A key's mark in the Keys table: its sync state and the remote its link carries it to. */
export interface KeySyncMark {
  state: SyncKeyState;
  remote: SyncRemote;
  /** Its create has not reached the remote yet: its publicApiKey changes when it does. */
  notOnRemote?: boolean;
}

/**
 * Why a key's publicApiKey is not handed out (Copy, Reveal) while its create has not reached the
 * remote: the push gives it the remote's value and the one made here stops working
 * (electron/sync/README.md, Push); null when it may be.
 */
export function notFinalWhy(mark: KeySyncMark | undefined): string | null {
  if (!mark?.notOnRemote) return null;
  return `Not on ${mark.remote.full} yet: its publicApiKey changes when the key gets there (the remote gives it its own). Copy it once the sync has pushed it.`;
}

/**
 * The remote of a link in words. Named by its profile only where one profile has its address and
 * username: of two such, either could be the one it was linked with.
 */
export function remoteOfLink(link: Pick<SyncLinkDto, "remote">, profiles: readonly ProfileDto[]): SyncRemote {
  const matching = profiles.filter((each) => each.kind === "remote" && linkUses(link, each));
  const profile = matching.length === 1 ? matching[0] : undefined;
  if (profile) return { name: profile.name, full: `${profile.name} (${link.remote.baseUrl})` };
  let host = link.remote.baseUrl;
  try {
    host = new URL(link.remote.baseUrl).host;
  } catch {
    // Not a URL (the service validated it as one): the address as it is.
  }
  return { name: host, full: `${link.remote.username} at ${link.remote.baseUrl}` };
}

/**
 * Whether a change made here to a key in this state goes to the remote at the next sync: every
 * linked key's does (a pending or conflicting one too); a local-only key's and one gone from the
 * remote's do not.
 */
export function reachesRemote(state: SyncKeyState | undefined): boolean {
  return state !== undefined && state !== "local-only" && state !== "remote-missing";
}

/** The remote a change to this key reaches at the next sync, or null when it stays here. */
export function syncedTo(mark: KeySyncMark | undefined): SyncRemote | null {
  return mark && reachesRemote(mark.state) ? mark.remote : null;
}

/** What a confirmation of a change to a synced key says. */
export function syncedChangeNotice(remote: SyncRemote): string {
  return `This change also reaches ${remote.full} at the next sync.`;
}

/**
 * The sync marks of a linked account's keys. The service lists the linked keys that have news
 * (conflict, pending, failed, gone from the remote) and the local-only ones (every key without a
 * link entry); every other key of the account is linked and in step: "synced". That holds only
 * once the whole local-only list is known (`localOnlyComplete`): until then, only listed keys
 * are marked.
 */
export interface SyncMarks {
  /** The remote the account is linked to; null when it is not linked. */
  remote: SyncRemote | null;
  /** The account's link (it has one at most); null when it is not linked. */
  linkId?: number | null;
  get(key: string): KeySyncMark | undefined;
}

/** @internal Exported for tests. */
export const NO_SYNC_MARKS: SyncMarks = { remote: null, get: () => undefined };

export function syncMarksOf(input: {
  remote: SyncRemote | undefined;
  linkId?: number;
  withNews: ReadonlyArray<{ key: string; state: SyncKeyState; remoteKey?: string | null }> | undefined;
  localOnly: readonly string[] | undefined;
  localOnlyComplete: boolean;
}): SyncMarks {
  const { remote } = input;
  if (!remote || (!input.withNews && !input.localOnly)) return NO_SYNC_MARKS;
  const marks = new Map<string, KeySyncMark>();
  for (const key of input.localOnly ?? []) marks.set(key, { state: "local-only", remote });
  for (const key of input.withNews ?? [])
    marks.set(key.key, {
      state: key.state,
      remote,
      ...(key.remoteKey === null && key.state !== "local-only" && { notOnRemote: true }),
    });
  const inStep: KeySyncMark | undefined =
    input.withNews && input.localOnlyComplete ? { state: "synced", remote } : undefined;
  return { remote, linkId: input.linkId ?? null, get: (key) => marks.get(key) ?? inStep };
}

/**
 * Whether a key created in a linked account already has the publicApiKey it keeps, from the link's
 * keys with news (`sync.keys`): its create reached the remote (it has a remote key id, or is in step
 * and no longer listed). Until then the value made here is not final: the remote gives the key its
 * own when the create lands, and the local value stops working (electron/sync/README.md, Push).
 */
export function newKeyOnRemote(
  withNews: ReadonlyArray<Pick<SyncKeyDto, "key" | "remoteKey" | "error">>,
  key: string,
): { onRemote: true } | { onRemote: false; why: string | null } {
  const entry = withNews.find((each) => each.key === key);
  if (!entry || entry.remoteKey !== null) return { onRemote: true };
  return { onRemote: false, why: entry.error };
}

/**
 * What a bulk change's confirmation says of synced keys: how many of the chosen keys (`chosen`,
 * or every key matching a filter) reach the remote at the next sync; null when none does.
 */
export function bulkSyncedNotice(marks: SyncMarks, chosen: Iterable<string> | "matching"): string | null {
  if (!marks.remote) return null;
  if (chosen === "matching")
    return `Those of them synced with ${marks.remote.full} also change there at the next sync.`;
  let count = 0;
  for (const key of chosen) if (reachesRemote(marks.get(key)?.state)) count++;
  if (count === 0) return null;
  return `${count === 1 ? "1 of them is" : `${count} of them are`} synced: the change also reaches ${marks.remote.full} at the next sync.`;
}

/**
 * What a new link did, once its first run (which linking starts) is over: how many keys it pulled,
 * what it pushed (nothing of the keys that were here: they stay local-only until pushed), or why
 * the run failed.
 */
export function linkedNotice(
  link: Pick<SyncLinkDto, "linkedKeys" | "pending" | "lastError">,
  localOnly: number,
): { title: string; message: string; failed: boolean } {
  if (link.lastError)
    return { title: "Linked; the first sync failed", message: link.lastError, failed: true };
  const keys = (count: number) => `${count} ${count === 1 ? "key" : "keys"}`;
  const stay =
    localOnly === 0
      ? ""
      : ` ${keys(localOnly)} of this account ${localOnly === 1 ? "stays" : "stay"} here until you push ${localOnly === 1 ? "it" : "them"}.`;
  return {
    title: "Linked and synced",
    message: `${keys(link.linkedKeys)} pulled from the remote, 0 pushed.${stay}`,
    failed: false,
  };
}
