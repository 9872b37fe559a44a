import type { KeySortField, KeyStateFilter, Permission } from "../../../shared/apiKeys.ts";
import type { AuditReason } from "../../../shared/audit.ts";
import type { SyncedField } from "../../../shared/sync.ts";
import type { Account } from "../domain/accounts.ts";
import type { ApiKeyFields, StoredApiKey } from "../domain/apiKeyRecords.ts";
import type { AuditPage, AuditQuery, NewAuditEntry } from "../domain/auditEntries.ts";
import type { FailureBucket } from "../domain/failureBuckets.ts";
import type { StoredSession } from "../domain/ibssoSessions.ts";
import type { IdempotencyLookup, IdempotentRequest, RememberedAnswer } from "../domain/idempotency.ts";
import type { KeyGrant } from "../domain/keyAuthorization.ts";
import type { PendingUsage, StoredUsage } from "../domain/keyUsage.ts";
import type { UsageByTime } from "../domain/keyUsageSeries.ts";
import type {
  Fields,
  LinkCounts,
  LocalOnlyKey,
  OutboxEntry,
  SyncKeyState,
  SyncLink,
  SyncRunRecord,
} from "../domain/syncRecords.ts";
import type {
  ApplicationFields,
  CapturedFilter,
  CapturedMessage,
  NewPin,
  NewSend,
  PinRecord,
  PinStatus,
  PinVerification,
  StoredApplication,
  StoredTemplate,
  TemplateFields,
} from "../domain/tfaRecords.ts";

/** How often a cache had the value asked for (hits) and how often it did not (misses: a load follows). */
export interface CacheLookups {
  hits: number;
  misses: number;
}

/** Told the digest of every key written through this store, so caches keyed by it can drop the entry. */
export type KeyChangeListener = (digest: Buffer) => void;

/**
 * A state-sorted list is read in four parts, one per state, in this rank order: working keys, not
 * valid yet, expired, disabled (both stores). The part holding every key a state filter matches
 * (expiring soon: working keys).
 */
export const STATE_FILTER_SEGMENTS: Record<KeyStateFilter, number> = {
  enabled: 0,
  "expiring-soon": 0,
  "not-yet-valid": 1,
  expired: 2,
  disabled: 3,
};

export interface ApiKeyFilter {
  enabled?: boolean;
  /** Exact name. */
  name?: string;
  publicApiKey?: string;
  /** Case-insensitive substring of the name. */
  nameContains?: string;
  permission?: Permission;
  /** The key's state at `now` (shared/apiKeys.ts keyStateAt; "expiring-soon" as isExpiringSoon). */
  state?: KeyStateFilter;
  /** The time `state` is evaluated at (ms); required with `state`. */
  now?: number;
  /** The order of a list; creation order (ascending) when left out. */
  sort?: KeySort;
  /**
   * Keys not used (no allowed App-authorized call stored) since this time (ms): "not used for N
   * days". A key never used matches, if it existed then: created at or before this time (where its
   * creation is not known, come to this service by then). Reads key_usage: what the recorder has written.
   */
  unusedSince?: number;
}

/** What a list's keys carry beyond the spec's fields (include=created, include=usage). */
export interface ListExtras {
  created?: boolean;
  /** The time (ms) the usage's last 24 hours end at; absent: no usage. */
  usageAt?: number;
}

export interface KeySort {
  by: KeySortField;
  desc: boolean;
}

/** Whether a list is in another order than creation order (the id windows then do not apply). */
export function isSorted(sort: KeySort | undefined): sort is KeySort {
  return sort !== undefined && (sort.by !== "created" || sort.desc);
}

/**
 * What the key service keeps, whatever the database (README.md, "The store interface"). Reads
 * are the repositories' methods, outside any transaction; writes happen only inside
 * `write(work)`. Rows come back as the domain's types (domain/): no SQL and no row shapes leave the store.
 */
export interface Store {
  readonly accounts: AccountReads;
  /** The hits and misses of the store's account cache, where it keeps one (PostgreSQL; the metrics). */
  readonly accountLookups?: CacheLookups;
  readonly apiKeys: ApiKeyReads;
  readonly audit: AuditReads;
  readonly idempotency: IdempotencyReads;
  readonly usage: UsageReads;
  readonly sync: SyncReads;
  readonly tfa: TfaReads;
  readonly tfaPins: TfaPinReads;
  readonly ibssoSessions: IbssoSessionReads;
  readonly meta: MetaReads;
  readonly health: StoreHealth;
  /** Whether something may have changed that this process did not write: caches check it. */
  readonly changes: ChangeFeed;
  /**
   * Runs `work(tx)` atomically and resolves after the commit ("answered" means durable). A work
   * that throws rolls back alone and its promise rejects with what it threw. `work` awaits only
   * the store's methods (anything else belongs before or after the write). On PostgreSQL a work
   * that lost a race (serialization failure, deadlock) runs again from the start, so it does
   * nothing that must happen once except through `tx`.
   */
  write<T>(work: (tx: StoreWrite) => Promise<T>): Promise<T>;
}

/** The repositories' write methods, given to a write's work only. */
export interface StoreWrite {
  readonly accounts: AccountWrites;
  readonly apiKeys: ApiKeyWrites;
  readonly audit: AuditWrites;
  readonly idempotency: IdempotencyWrites;
  readonly usage: UsageWrites;
  readonly sync: SyncWrites;
  readonly tfa: TfaWrites;
  readonly tfaPins: TfaPinWrites;
  readonly ibssoSessions: IbssoSessionWrites;
  readonly meta: MetaWrites;
  /** The failed sign-in throttle's buckets, where replicas share them (write-only). */
  readonly authFailures: AuthFailureWrites;
  /**
   * Takes the named lock to the end of this write unless another write holds it: false then.
   * Housekeeping that one replica at a time is enough for (audit retention, the idempotency purge)
   * skips its round when another replica of a shared database is doing it. SQLite: always true
   * (a write holds the whole database).
   */
  tryLock(name: string): Promise<boolean>;
}

/**
 * What caches learn of writes they did not see (README.md, "Caches across replicas"). A cache
 * drops everything when `generation()` moves, and the one entry a listener names. A listener is
 * told after the change committed, by any replica (this one's too); a store that cannot name rows
 * (SQLite: another process's commit is one `PRAGMA data_version`) moves the generation instead and
 * never calls them.
 */
export interface ChangeFeed {
  /**
   * A number that moves whenever everything cached may be stale. It moves on every call while the
   * store cannot tell changes (PostgreSQL with its LISTEN connection down): nothing loaded then
   * is kept, so every lookup reads the database.
   */
  generation(): number;
  /** The digest of a key whose row changed. Each `on…` answers the function that unsubscribes. */
  onKeyChange(listener: (digest: Buffer) => void): () => void;
  /** The id of an account whose row changed (a password, a new account). */
  onAccountChange(listener: (accountId: number) => void): () => void;
  /** The pinId of a PIN whose state (attempts, verified) changed. */
  onPinChange(listener: (pinId: string) => void): () => void;
  /**
   * The PIN events of the other replicas of a shared database (a message captured, a PIN's state
   * changed), after their commit, in commit order; absent where one process is the only writer (SQLite).
   */
  onPinEvent?(listener: (note: PinEventNote) => void): () => void;
  /**
   * Whether changes of other replicas are heard now (PostgreSQL's LISTEN connection); absent where
   * one process is the only writer (SQLite).
   */
  readonly listening?: boolean;
  /**
   * Told, for each write heard from the change feed, when its replica sent its changes (that
   * replica's clock, ms; just before its commit): how late caches learn of changes. Absent on SQLite.
   */
  onChangesHeard?(listener: (sentAt: number) => void): () => void;
}

/**
 * A PIN event as the change feed carries it: ids and counts, never a PIN, a text or a number
 * (the replica told reads the message from the store, where it is sealed).
 */
export type PinEventNote =
  | { type: "captured"; accountId: number; sendId: number }
  | {
      type: "state";
      accountId: number;
      pinId: string;
      applicationId: string;
      attemptsRemaining: number;
      verified: boolean;
    };

export interface AccountReads {
  byUsername(username: string): Promise<Account | undefined>;
  byAccountKey(accountKey: string): Promise<Account | undefined>;
  byId(id: number): Promise<Account | undefined>;
  /** Every account, in id order. */
  list(): Promise<Account[]>;
  /** Whether `ancestorId` is `accountId` itself or one of its parents, at any depth. */
  manages(ancestorId: number, accountId: number): Promise<boolean>;
}

export interface AccountWrites extends AccountReads {
  /** Rejects with a DuplicateError when the username (or accountKey) is taken. */
  insert(account: Omit<Account, "id">): Promise<Account>;
  setPasswordHash(id: number, passwordHash: string): Promise<void>;
}

export interface ApiKeyReads {
  /** The keyed digest a publicApiKey is found by (a pure HMAC: synchronous). */
  digestOf(publicApiKey: string): Buffer;
  /** A list cursor sealed for its list (domain/listCursor.ts; synchronous, libsodium). */
  sealCursor(text: string, binding: string): Buffer;
  /** A cursor's text when it was sealed for this list; undefined for anything else. */
  openCursor(sealed: Uint8Array, binding: string): string | undefined;
  /** The authorization rules of the key with this digest, read without decrypting anything. */
  grantByDigest(digest: Buffer): Promise<KeyGrant | undefined>;
  byId(id: number): Promise<StoredApiKey | undefined>;
  /** The key id (`key`) of a row, without decrypting anything. */
  keyIdOf(id: number): Promise<string | undefined>;
  /** Whether any account has a key with this id. */
  keyIdTaken(key: string): Promise<boolean>;
  get(accountId: number, key: string): Promise<StoredApiKey | undefined>;
  /** The key with this publicApiKey, in any account. */
  findByPublicApiKey(publicApiKey: string): Promise<StoredApiKey | undefined>;
  /** Told the digest of every key this process writes (after the write's statement, inside it). */
  onChange(listener: KeyChangeListener): () => void;
}

export interface ApiKeyWrites extends ApiKeyReads {
  /** `createdAt`: the key's real creation time (`now` by default); null when unknown (a copy). */
  insert(
    accountId: number,
    accountKey: string,
    identity: { key: string; publicApiKey: string },
    fields: ApiKeyFields,
    now: number,
    createdAt?: number | null,
  ): Promise<StoredApiKey>;
  update(stored: StoredApiKey, fields: ApiKeyFields, now: number): Promise<StoredApiKey>;
  replacePublicApiKey(stored: StoredApiKey, publicApiKey: string, now: number): Promise<StoredApiKey>;
}

export interface AuditReads {
  /** Newest first. */
  page(query: AuditQuery): Promise<AuditPage>;
}

export interface AuditWrites extends AuditReads {
  /** Inside the write of the change it records: both commit, or neither. */
  append(entry: NewAuditEntry): Promise<void>;
  /** Deletes at most `batch` entries older than `before`; answers how many went. */
  prune(before: number, batch: number): Promise<number>;
}

export interface IdempotencyReads {
  /** Keyed digest of everything that makes two requests "the same" for one account (pure). */
  digestOf(accountId: number, request: IdempotentRequest): Buffer;
}

export interface IdempotencyWrites extends IdempotencyReads {
  lookup(accountId: number, idempotencyKey: string, digest: Buffer, now: number): Promise<IdempotencyLookup>;
  remember(
    accountId: number,
    idempotencyKey: string,
    digest: Buffer,
    answer: RememberedAnswer,
    now: number,
  ): Promise<void>;
  /** Deletes a bounded number of expired records; answers how many went. */
  purgeExpired(now: number): Promise<number>;
}

export interface UsageReads {
  read(apiKeyId: number, now: number): Promise<StoredUsage>;
  /** The key's stored counts by hour and by UTC day that fall in its series at `now`. */
  series(apiKeyId: number, now: number): Promise<UsageByTime>;
}

export interface UsageWrites extends UsageReads {
  write(batch: ReadonlyMap<string, PendingUsage>, now: number): Promise<void>;
}

/** Buckets full again by time that one `purge` deletes at most. */
export const AUTH_FAILURE_PURGE_BATCH = 100;

/**
 * The failed sign-in throttle's buckets kept in the database, so that replicas of a shared one
 * count an address's attempts once. Rows only: the throttle's rules (domain/failureBuckets.ts) are
 * applied by its caller (auth/sharedFailureThrottle.ts) inside the write.
 */
export interface AuthFailureWrites {
  /**
   * The address's bucket. Where replicas share the table (PostgreSQL) it first holds the address to
   * the commit (an advisory lock: an address without a row has nothing to lock), so one address's
   * attempts take turns across replicas.
   */
  read(address: string): Promise<FailureBucket | undefined>;
  /** Keeps the bucket; undefined deletes it. */
  save(address: string, bucket: FailureBucket | undefined): Promise<void>;
  /** Deletes up to AUTH_FAILURE_PURGE_BATCH buckets last changed at or before `before`, never waiting. */
  purge(before: number): Promise<void>;
}

/** A write refused because a unique value (a username) is taken. */
export class DuplicateError extends Error {}

// ---- sync (electron/sync): links, linked keys and the outbox -----------------------------------

export interface SyncReads {
  link(id: number): Promise<SyncLink | undefined>;
  linkOfAccount(accountId: number): Promise<SyncLink | undefined>;
  /** Every link, in id order. */
  links(): Promise<SyncLink[]>;
  /** The link's remote password, unsealed (it is kept sealed with the data key). */
  remotePassword(link: SyncLink): Promise<string>;
  counts(linkId: number): Promise<LinkCounts>;
  keyState(apiKeyId: number): Promise<SyncKeyState | undefined>;
  /** The link's linked keys, in key id order. */
  keyStates(linkId: number): Promise<SyncKeyState[]>;
  /**
   * Linked keys with anything to show (conflicts, flags, changes not yet out) among the key ids in
   * (after, after + span]; `next` is where the following step starts, null past the link's last key.
   */
  keyStatesWithNewsIn(
    linkId: number,
    after: number,
    span: number,
  ): Promise<{ states: SyncKeyState[]; next: number | null }>;
  /** Whether a key of this link is already the twin of this remote key. */
  remoteKeyLinked(linkId: number, remoteKey: string): Promise<boolean>;
  /** Up to `limit` keys of the account that no link knows, after key row `after`, in creation order. */
  localOnlyKeys(accountId: number, after: number, limit: number): Promise<LocalOnlyKey[]>;
  countLocalOnly(accountId: number): Promise<number>;
  entry(id: number): Promise<OutboxEntry | undefined>;
  /** Creates sent and not answered (attempts > 0, not failed, with the body sent). */
  uncertainCreates(linkId: number): Promise<OutboxEntry[]>;
  /** Up to `limit` entries of the link's outbox after entry `after`, in order. */
  entriesAfter(linkId: number, after: number, limit: number): Promise<OutboxEntry[]>;
  /** The link's outbox in order, failed entries included. */
  entries(linkId: number): Promise<OutboxEntry[]>;
  entriesOfKey(apiKeyId: number): Promise<OutboxEntry[]>;
}

export interface SyncWrites extends SyncReads {
  /** Rejects with a DuplicateError when the account has a link already (one link per account). */
  insertLink(link: {
    accountId: number;
    remoteBaseUrl: string;
    remoteUsername: string;
    remotePassword: string;
    remoteAccountKey: string;
    intervalSeconds: number;
    now: number;
  }): Promise<SyncLink>;
  /** New credentials (and address, when it moved); a link paused for its credentials resumes. */
  setRemote(
    link: SyncLink,
    remote: { baseUrl?: string | undefined; username: string; password: string },
  ): Promise<void>;
  setInterval(linkId: number, seconds: number): Promise<void>;
  setPaused(linkId: number, reason: SyncLink["pausedReason"], error?: string | null): Promise<void>;
  recordLinkAttempt(linkId: number, now: number): Promise<void>;
  /** A run went through; `problems` names keys it could not handle (null when none). */
  recordSuccess(linkId: number, now: number, nextAttemptAt: number, problems: string | null): Promise<void>;
  /** Plans the next run at `at`, ending any backoff. */
  planRun(linkId: number, at: number): Promise<void>;
  recordFailure(linkId: number, error: string, nextAttemptAt: number | null, failures: number): Promise<void>;
  /** Adds a finished run to the link's log (SyncLink.runLog), keeping the newest `keep`. */
  recordRun(linkId: number, run: SyncRunRecord, keep: number): Promise<void>;
  /** Removes the link and its sync state; the keys themselves stay, as local keys. */
  deleteLink(linkId: number): Promise<void>;
  /**
   * Whether `owner` (a process) holds the link's lease, which one replica of a shared database
   * holds while it runs the link: takes it until `until` when it is free or expired at `now`,
   * renews it when it is `owner`'s already. SQLite (one process): always true, nothing written.
   */
  leaseLink(linkId: number, owner: string, until: number, now: number): Promise<boolean>;
  /** Gives the lease up if `owner` holds it. */
  releaseLink(linkId: number, owner: string): Promise<void>;
  insertKeyState(state: {
    apiKeyId: number;
    linkId: number;
    remoteKey: string | null;
    base: Fields | null;
  }): Promise<void>;
  deleteKeyState(apiKeyId: number): Promise<void>;
  setRemoteKey(apiKeyId: number, remoteKey: string, base: Fields): Promise<void>;
  setBase(apiKeyId: number, base: Fields): Promise<void>;
  setConflict(apiKeyId: number, conflict: SyncKeyState["conflict"]): Promise<void>;
  /** Where the key's conflicting remote values came from (SyncKeyState.conflictOrigin). */
  setConflictOrigin(apiKeyId: number, origin: SyncKeyState["conflictOrigin"]): Promise<void>;
  setRemoteMissing(apiKeyId: number, missing: boolean): Promise<void>;
  /**
   * Makes a key a linked key whose create waits in the outbox (its Idempotency-Key fixed now, so
   * every retry is the same request). False when it was linked already.
   */
  queueCreate(
    linkId: number,
    apiKeyId: number,
    idempotencyKey: string,
    now: number,
    reason?: AuditReason | null,
  ): Promise<boolean>;
  enqueue(entry: {
    linkId: number;
    apiKeyId: number;
    kind: OutboxEntry["kind"];
    fields: readonly SyncedField[];
    idempotencyKey?: string;
    now: number;
    /** Why the change was made here (Keydesk-Action), sent with it to the remote. */
    reason?: AuditReason | null;
  }): Promise<void>;
  /** Records a create's attempt before it is sent, with the synced fields it sends. */
  recordCreateAttempt(
    entryId: number,
    sentBody: Fields,
    fields: readonly SyncedField[],
    reason?: AuditReason | null,
  ): Promise<void>;
  recordEntryAttempts(entryIds: readonly number[], error: string | null): Promise<void>;
  markFailed(entryIds: readonly number[], error: string): Promise<void>;
  retry(entryId: number): Promise<void>;
  deleteEntries(entryIds: readonly number[]): Promise<void>;
  /**
   * Takes fields out of a key's pending update entries (entries up to `upToId` when given);
   * entries left with no field are removed.
   */
  dropFields(apiKeyId: number, fields: readonly SyncedField[], upToId?: number): Promise<void>;
}

/** 2FA applications and their message templates, each in its owner's account. */
export interface TfaReads {
  /** The account's application with this applicationId. */
  application(accountId: number, applicationId: string): Promise<StoredApplication | undefined>;
  /** The account's applications in creation order. */
  applications(accountId: number): Promise<StoredApplication[]>;
  /** The application's template with this messageId. */
  template(application: StoredApplication, messageId: string): Promise<StoredTemplate | undefined>;
  /** The application's templates in creation order. */
  templates(application: StoredApplication): Promise<StoredTemplate[]>;
}

export interface TfaWrites extends TfaReads {
  insertApplication(
    accountId: number,
    applicationId: string,
    fields: ApplicationFields,
    now: number,
  ): Promise<StoredApplication>;
  updateApplication(
    stored: StoredApplication,
    fields: ApplicationFields,
    now: number,
  ): Promise<StoredApplication>;
  insertTemplate(
    application: StoredApplication,
    messageId: string,
    fields: TemplateFields,
    now: number,
  ): Promise<StoredTemplate>;
  updateTemplate(stored: StoredTemplate, fields: TemplateFields, now: number): Promise<StoredTemplate>;
}

/** The verify calls that count no more, deleted before a PIN's calls are read (times in ms). */
export interface VerifyCallForget {
  /** The PIN's calls at or before this time are out of the limit's window. */
  windowStart: number;
  /** Every PIN's calls at or before this time are out of any window (a batch at a time). */
  expiredBefore: number;
}

/** Sent PINs and every message sent for them; PINs and texts are stored sealed. */
export interface TfaPinReads {
  /** The hot path of PIN status: nothing decrypted. */
  status(pinId: string): Promise<PinStatus | undefined>;
  /** The PIN with its application and template, and the PIN itself decrypted. */
  record(pinId: string): Promise<PinRecord | undefined>;
  /** The application's PINs to one number, newest first, narrowed by verified and sent. */
  verifications(
    applicationRef: number,
    msisdn: string,
    filter: { verified?: boolean; sent?: boolean },
  ): Promise<PinVerification[]>;
  /** Captured messages of the given accounts, newest first. */
  captured(filter: CapturedFilter): Promise<CapturedMessage[]>;
}

/**
 * The send limits read the sends and insert the new one in the same write, so concurrent sends
 * cannot both slip under a limit. The PIN's state changes are conditional writes: an attempt is
 * spent only while one is left, whatever another write did since the PIN was read.
 */
export interface TfaPinWrites extends TfaPinReads {
  /** Time of the n-th most recent message of the application (1 = newest), if there were that many. */
  nthNewestSend(applicationRef: number, n: number): Promise<number | undefined>;
  /** Time of the n-th most recent message of the application to one number. */
  nthNewestSendTo(applicationRef: number, msisdn: string, n: number): Promise<number | undefined>;
  /** A new PIN and its first message; answers the PIN's row id. */
  insertPin(pin: NewPin, send: Omit<NewSend, "pinRef" | "pinId">): Promise<number>;
  /** One more message of an existing PIN (a resend). */
  recordResend(send: NewSend): Promise<void>;
  /**
   * Time of the n-th most recent verify call of the PIN (1 = newest), if there were that many:
   * what verifyPinLimit counts (the caller decides, tfa/verifyCallLimit.ts, and records an allowed
   * call with recordVerifyCall in the same write). The PIN's calls at or before
   * `forget.windowStart` are deleted first (a limit changed to a longer window then counts only
   * the calls the previous one still counted), and so is a batch of every PIN's calls at or
   * before `forget.expiredBefore` (older than any window). Calls are counted in the database, so
   * calls through every replica of a shared one add up; from this read to the commit, the verify
   * calls of one PIN take turns (on PostgreSQL the PIN's row stays locked to the commit).
   */
  nthNewestVerifyCall(pin: { id: number }, n: number, forget: VerifyCallForget): Promise<number | undefined>;
  /** Counts one verify call of the PIN at `at` (after nthNewestVerifyCall, in the same write). */
  recordVerifyCall(pin: { id: number }, at: number): Promise<void>;
  /**
   * Uses one attempt if one is left and, when `verified` is given, the PIN is still in that state
   * (a wrong PIN decided on an unverified PIN spends nothing once another call verified it): the
   * attempts left after it, or undefined when it changed meanwhile (read it again and decide again).
   */
  spendAttempt(pin: { id: number; pinId: string; verified?: boolean }): Promise<number | undefined>;
  /**
   * Marks the PIN verified (`verifiedAt` only the first time) if it has an attempt left and is not
   * verified yet; false when it changed meanwhile (read it again and decide again).
   */
  markVerified(pin: { id: number; pinId: string }, verifiedAt: number): Promise<boolean>;
}

/** IBSSO sessions (auth/ibssoSessions.ts): each found by its token's keyed digest, never the token. */
export interface IbssoSessionReads {
  /** The keyed digest a token is stored and found by (pure). */
  digestOf(token: string): Buffer;
  /** The session with this digest, live or not (the caller decides, at its time). */
  byDigest(digest: Buffer): Promise<StoredSession | undefined>;
}

export interface IbssoSessionWrites extends IbssoSessionReads {
  insert(accountId: number, digest: Buffer, createdAt: number, expiresAt: number): Promise<StoredSession>;
  /**
   * The account's sessions live at `now`, oldest first. Where replicas share the table (PostgreSQL)
   * it first holds the account to the commit, so two creates cannot both count under the limit.
   */
  liveOf(accountId: number, now: number): Promise<StoredSession[]>;
  /** Ends these sessions. */
  delete(ids: readonly number[]): Promise<void>;
  /** Ends the session with this digest; false when there was none. */
  deleteByDigest(digest: Buffer): Promise<boolean>;
  /** Deletes up to SESSION_PURGE_BATCH sessions expired at `now`; answers how many went. */
  purgeExpired(now: number): Promise<number>;
}

/** Named values of the store itself (the data key's check value, maintenance flags). */
export interface MetaReads {
  read(name: string): Promise<string | undefined>;
}

export interface MetaWrites extends MetaReads {
  /** Sets the value, replacing the one before. */
  write(name: string, value: string): Promise<void>;
}

export interface StoreHealth {
  /**
   * Resolves when the database answers a read of what every request needs (readiness, for a load
   * balancer); rejects with what the database said otherwise. Cheap enough to ask every second.
   */
  ready(): Promise<void>;
}
