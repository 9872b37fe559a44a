import type { SecretBox } from "../crypto/secretBox.ts";
import type { Account } from "../domain/accounts.ts";
import type { AccountStore } from "./accountStore.ts";
import type { ApiKeyStore } from "./apiKeyStore.ts";
import type { AuditStore } from "./auditStore.ts";
import { sqliteBucketRows } from "./authFailureStore.ts";
import { type Db, readMeta, writeMeta } from "./database.ts";
import { answerReadinessQuery } from "./databaseHealth.ts";
import type { ExternalChanges } from "./externalChanges.ts";
import type { GroupCommit } from "./groupCommit.ts";
import { IbssoSessionStore } from "./ibssoSessionStore.ts";
import { IdempotencyStore } from "./idempotencyStore.ts";
import { KeyUsageStore } from "./keyUsageStore.ts";
import {
  type AccountReads,
  type AccountWrites,
  type ApiKeyReads,
  type ApiKeyWrites,
  type AuditReads,
  type AuditWrites,
  DuplicateError,
  type IbssoSessionReads,
  type IbssoSessionWrites,
  type IdempotencyReads,
  type IdempotencyWrites,
  type MetaReads,
  type MetaWrites,
  type Store,
  type StoreHealth,
  type StoreWrite,
  type SyncReads,
  type SyncWrites,
  type TfaPinReads,
  type TfaPinWrites,
  type TfaReads,
  type TfaWrites,
  type UsageReads,
  type UsageWrites,
} from "./store.ts";
import { SyncStore } from "./syncStore.ts";
import { TfaPinStore } from "./tfaPinStore.ts";
import { TfaStore } from "./tfaStore.ts";

/** The synchronous SQLite stores a SqliteStore answers from (those of the open DataDir). */
export interface SqliteParts {
  db: Db;
  box: SecretBox;
  accounts: AccountStore;
  apiKeys: ApiKeyStore;
  audit: AuditStore;
  writes: GroupCommit;
  externalChanges: ExternalChanges;
}

/**
 * The Store on SQLite: the synchronous stores on the service's one connection, each answer an
 * already-resolved promise. Writes go through the GroupCommit (one transaction and one fsync per
 * group of concurrent writes, a savepoint per write), so a write's awaits on these methods never
 * leave the turn, and no reader on this connection sees a write that may still roll back.
 */
export class SqliteStore implements Store {
  readonly accounts: AccountReads;
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
  readonly changes: ExternalChanges;
  readonly #writes: GroupCommit;
  readonly #tx: StoreWrite;

  constructor(parts: SqliteParts) {
    this.#writes = parts.writes;
    this.changes = parts.externalChanges;
    // Inside a write, the same methods on the same connection: reads there see the write's own rows.
    this.#tx = {
      accounts: accountsOf(parts.accounts),
      apiKeys: apiKeysOf(parts.apiKeys),
      audit: auditOf(parts.audit),
      idempotency: idempotencyOf(new IdempotencyStore(parts.db, parts.box)),
      usage: usageOf(new KeyUsageStore(parts.db)),
      sync: syncOf(new SyncStore(parts.db, parts.box)),
      tfa: tfaOf(new TfaStore(parts.db)),
      tfaPins: tfaPinsOf(new TfaPinStore(parts.db, parts.box)),
      ibssoSessions: ibssoSessionsOf(new IbssoSessionStore(parts.db, parts.box)),
      meta: metaOf(parts.db),
      authFailures: sqliteBucketRows(parts.db),
      tryLock: () => Promise.resolve(true),
    };
    ({
      accounts: this.accounts,
      apiKeys: this.apiKeys,
      audit: this.audit,
      idempotency: this.idempotency,
      usage: this.usage,
      sync: this.sync,
      tfa: this.tfa,
      tfaPins: this.tfaPins,
      ibssoSessions: this.ibssoSessions,
      meta: this.meta,
    } = this.#tx);
    this.health = { ready: () => settle(() => answerReadinessQuery(parts.db)) };
  }

  write<T>(work: (tx: StoreWrite) => Promise<T>): Promise<T> {
    return this.#writes.runAsync(() => work(this.#tx));
  }
}

/** Runs a synchronous store call as a promise: its error rejects, never throws at the caller. */
function settle<T>(call: () => T): Promise<T> {
  try {
    return Promise.resolve(call());
  } catch (error) {
    return Promise.reject(error);
  }
}

function accountsOf(store: AccountStore): AccountWrites {
  return {
    byUsername: (username) => settle(() => store.byUsername(username)),
    byAccountKey: (accountKey) => settle(() => store.byAccountKey(accountKey)),
    byId: (id) => settle(() => store.byId(id)),
    list: () => settle(() => store.list()),
    manages: (ancestorId, accountId) => settle(() => store.manages(ancestorId, accountId)),
    insert: (account) =>
      settle((): Account => {
        try {
          return store.insert(account);
        } catch (error) {
          if ((error as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE") {
            throw new DuplicateError(`an account named ${account.username} already exists`);
          }
          throw error;
        }
      }),
    setPasswordHash: (id, passwordHash) => settle(() => store.setPasswordHash(id, passwordHash)),
  };
}

function apiKeysOf(store: ApiKeyStore): ApiKeyWrites {
  return {
    digestOf: (publicApiKey) => store.digestOf(publicApiKey),
    sealCursor: (text, binding) => store.sealCursor(text, binding),
    openCursor: (sealed, binding) => store.openCursor(sealed, binding),
    grantByDigest: (digest) => settle(() => store.grantByDigest(digest)),
    byId: (id) => settle(() => store.byId(id)),
    keyIdOf: (id) => settle(() => store.keyIdOf(id)),
    keyIdTaken: (key) => settle(() => store.keyIdTaken(key)),
    get: (accountId, key) => settle(() => store.get(accountId, key)),
    findByPublicApiKey: (publicApiKey) => settle(() => store.findByPublicApiKey(publicApiKey)),
    onChange: (listener) => store.onChange(listener),
    insert: (accountId, accountKey, identity, fields, now, createdAt = now) =>
      settle(() => store.insert(accountId, accountKey, identity, fields, now, createdAt)),
    update: (stored, fields, now) => settle(() => store.update(stored, fields, now)),
    replacePublicApiKey: (stored, publicApiKey, now) =>
      settle(() => store.replacePublicApiKey(stored, publicApiKey, now)),
  };
}

function auditOf(store: AuditStore): AuditWrites {
  return {
    page: (query) => settle(() => store.page(query)),
    append: (entry) => settle(() => store.append(entry)),
    prune: (before, batch) => settle(() => store.prune(before, batch)),
  };
}

function idempotencyOf(store: IdempotencyStore): IdempotencyWrites {
  return {
    digestOf: (accountId, request) => store.digestOf(accountId, request),
    lookup: (accountId, idempotencyKey, digest, now) =>
      settle(() => store.lookup(accountId, idempotencyKey, digest, now)),
    remember: (accountId, idempotencyKey, digest, answer, now) =>
      settle(() => store.remember(accountId, idempotencyKey, digest, answer, now)),
    purgeExpired: (now) => settle(() => store.purgeExpired(now)),
  };
}

function usageOf(store: KeyUsageStore): UsageWrites {
  return {
    read: (apiKeyId, now) => settle(() => store.read(apiKeyId, now)),
    series: (apiKeyId, now) => settle(() => store.series(apiKeyId, now)),
    write: (batch, now) => settle(() => store.write(batch, now)),
  };
}

function syncOf(store: SyncStore): SyncWrites {
  return {
    link: (id) => settle(() => store.link(id)),
    linkOfAccount: (accountId) => settle(() => store.linkOfAccount(accountId)),
    links: () => settle(() => store.links()),
    remotePassword: (link) => settle(() => store.remotePassword(link)),
    counts: (linkId) => settle(() => store.counts(linkId)),
    keyState: (apiKeyId) => settle(() => store.keyState(apiKeyId)),
    keyStates: (linkId) => settle(() => store.keyStates(linkId)),
    keyStatesWithNewsIn: (linkId, after, span) =>
      settle(() => store.keyStatesWithNewsIn(linkId, after, span)),
    remoteKeyLinked: (linkId, remoteKey) => settle(() => store.remoteKeyLinked(linkId, remoteKey)),
    localOnlyKeys: (accountId, after, limit) => settle(() => store.localOnlyKeys(accountId, after, limit)),
    countLocalOnly: (accountId) => settle(() => store.countLocalOnly(accountId)),
    entry: (id) => settle(() => store.entry(id)),
    uncertainCreates: (linkId) => settle(() => store.uncertainCreates(linkId)),
    entriesAfter: (linkId, after, limit) => settle(() => store.entriesAfter(linkId, after, limit)),
    entries: (linkId) => settle(() => store.entries(linkId)),
    entriesOfKey: (apiKeyId) => settle(() => store.entriesOfKey(apiKeyId)),
    insertLink: (link) =>
      settle(() => {
        try {
          return store.insertLink(link);
        } catch (error) {
          if ((error as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE") {
            throw new DuplicateError(`account ${link.accountId} has a sync link already`);
          }
          throw error;
        }
      }),
    setRemote: (link, remote) => settle(() => store.setRemote(link, remote)),
    setInterval: (linkId, seconds) => settle(() => store.setInterval(linkId, seconds)),
    setPaused: (linkId, reason, error) => settle(() => store.setPaused(linkId, reason, error)),
    recordLinkAttempt: (linkId, now) => settle(() => store.recordLinkAttempt(linkId, now)),
    recordSuccess: (linkId, now, nextAttemptAt, problems) =>
      settle(() => store.recordSuccess(linkId, now, nextAttemptAt, problems)),
    planRun: (linkId, at) => settle(() => store.planRun(linkId, at)),
    recordFailure: (linkId, error, nextAttemptAt, failures) =>
      settle(() => store.recordFailure(linkId, error, nextAttemptAt, failures)),
    recordRun: (linkId, run, keep) => settle(() => store.recordRun(linkId, run, keep)),
    deleteLink: (linkId) => settle(() => store.deleteLink(linkId)),
    // One process runs every link of its database file: it always holds the lease.
    leaseLink: () => Promise.resolve(true),
    releaseLink: () => Promise.resolve(),
    insertKeyState: (state) => settle(() => store.insertKeyState(state)),
    deleteKeyState: (apiKeyId) => settle(() => store.deleteKeyState(apiKeyId)),
    setRemoteKey: (apiKeyId, remoteKey, base) => settle(() => store.setRemoteKey(apiKeyId, remoteKey, base)),
    setBase: (apiKeyId, base) => settle(() => store.setBase(apiKeyId, base)),
    setConflict: (apiKeyId, conflict) => settle(() => store.setConflict(apiKeyId, conflict)),
    setConflictOrigin: (apiKeyId, origin) => settle(() => store.setConflictOrigin(apiKeyId, origin)),
    setRemoteMissing: (apiKeyId, missing) => settle(() => store.setRemoteMissing(apiKeyId, missing)),
    queueCreate: (linkId, apiKeyId, idempotencyKey, now, reason) =>
      settle(() => store.queueCreate(linkId, apiKeyId, idempotencyKey, now, reason)),
    enqueue: (entry) => settle(() => store.enqueue(entry)),
    recordCreateAttempt: (entryId, sentBody, fields, reason) =>
      settle(() => store.recordCreateAttempt(entryId, sentBody, fields, reason)),
    recordEntryAttempts: (entryIds, error) => settle(() => store.recordEntryAttempts(entryIds, error)),
    markFailed: (entryIds, error) => settle(() => store.markFailed(entryIds, error)),
    retry: (entryId) => settle(() => store.retry(entryId)),
    deleteEntries: (entryIds) => settle(() => store.deleteEntries(entryIds)),
    dropFields: (apiKeyId, fields, upToId) => settle(() => store.dropFields(apiKeyId, fields, upToId)),
  };
}

function tfaOf(store: TfaStore): TfaWrites {
  return {
    application: (accountId, applicationId) => settle(() => store.application(accountId, applicationId)),
    applications: (accountId) => settle(() => store.applications(accountId)),
    template: (application, messageId) => settle(() => store.template(application, messageId)),
    templates: (application) => settle(() => store.templates(application)),
    insertApplication: (accountId, applicationId, fields, now) =>
      settle(() => store.insertApplication(accountId, applicationId, fields, now)),
    updateApplication: (stored, fields, now) => settle(() => store.updateApplication(stored, fields, now)),
    insertTemplate: (application, messageId, fields, now) =>
      settle(() => store.insertTemplate(application, messageId, fields, now)),
    updateTemplate: (stored, fields, now) => settle(() => store.updateTemplate(stored, fields, now)),
  };
}

function tfaPinsOf(store: TfaPinStore): TfaPinWrites {
  return {
    status: (pinId) => settle(() => store.status(pinId)),
    record: (pinId) => settle(() => store.record(pinId)),
    verifications: (applicationRef, msisdn, filter) =>
      settle(() => store.verifications(applicationRef, msisdn, filter)),
    captured: (filter) => settle(() => store.captured(filter)),
    nthNewestSend: (applicationRef, n) => settle(() => store.nthNewestSend(applicationRef, n)),
    nthNewestSendTo: (applicationRef, msisdn, n) =>
      settle(() => store.nthNewestSendTo(applicationRef, msisdn, n)),
    insertPin: (pin, send) => settle(() => store.insertPin(pin, send)),
    recordResend: (send) => settle(() => store.recordResend(send)),
    nthNewestVerifyCall: (pin, n, forget) => settle(() => store.nthNewestVerifyCall(pin, n, forget)),
    recordVerifyCall: (pin, at) => settle(() => store.recordVerifyCall(pin, at)),
    spendAttempt: (pin) => settle(() => store.spendAttempt(pin)),
    markVerified: (pin, verifiedAt) => settle(() => store.markVerified(pin, verifiedAt)),
  };
}

function ibssoSessionsOf(store: IbssoSessionStore): IbssoSessionWrites {
  return {
    digestOf: (token) => store.digestOf(token),
    byDigest: (digest) => settle(() => store.byDigest(digest)),
    insert: (accountId, digest, createdAt, expiresAt) =>
      settle(() => store.insert(accountId, digest, createdAt, expiresAt)),
    liveOf: (accountId, now) => settle(() => store.liveOf(accountId, now)),
    delete: (ids) => settle(() => store.delete(ids)),
    deleteByDigest: (digest) => settle(() => store.deleteByDigest(digest)),
    purgeExpired: (now) => settle(() => store.purgeExpired(now)),
  };
}

function metaOf(db: Db): MetaWrites {
  return {
    read: (name) => settle(() => readMeta(db, name)),
    write: (name, value) => settle(() => writeMeta(db, name, value)),
  };
}
