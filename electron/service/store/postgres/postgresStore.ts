import type pg from "pg";
import type { SecretBox } from "../../crypto/secretBox.ts";
import type { NewAuditEntry } from "../../domain/auditEntries.ts";
import type {
  ApiKeyReads,
  AuditReads,
  CacheLookups,
  IbssoSessionReads,
  IdempotencyReads,
  KeyChangeListener,
  MetaReads,
  Store,
  StoreHealth,
  StoreWrite,
  SyncReads,
  TfaPinReads,
  TfaReads,
  UsageReads,
} from "../store.ts";
import { batchLinkLookups } from "./batchLinkLookups.ts";
import { CachedAccounts } from "./cachedAccounts.ts";
import { postgresAccounts } from "./postgresAccounts.ts";
import { postgresApiKeys } from "./postgresApiKeys.ts";
import { appendedAuditEntries, postgresAudit } from "./postgresAudit.ts";
import { postgresBucketRows } from "./postgresAuthFailures.ts";
import {
  accountChange,
  CHANGES_CHANNEL,
  keyChange,
  PostgresChangeFeed,
  pinChange,
  pinEventChange,
  sentChange,
} from "./postgresChangeFeed.ts";
import { postgresIbssoSessions } from "./postgresIbssoSessions.ts";
import { postgresIdempotency } from "./postgresIdempotency.ts";
import { postgresHealth, postgresMeta } from "./postgresMeta.ts";
import { postgresSync } from "./postgresSync.ts";
import { postgresTfa } from "./postgresTfa.ts";
import { postgresTfaPins } from "./postgresTfaPins.ts";
import { postgresUsage } from "./postgresUsage.ts";
import { advisoryLockKey, inTransaction, isRetryable, type Sql, sqlOn } from "./sql.ts";

/**
 * How many times a write that lost a race (serialization failure, deadlock) runs again.
 * @internal Exported for tests.
 */
export const WRITE_RETRIES = 3;
/** Transactions of writes open at once (each on a pooled client); more writes wait and go together. */
const MAX_OPEN_BATCHES = 2;
/** Writes in one transaction at most. */
const MAX_BATCH = 32;

type Work = (tx: StoreWrite) => Promise<unknown>;

interface QueuedWrite {
  work: Work;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** The end of a transaction failed: it may or may not have committed. `cause`: the driver's error. */
class CommitFailure extends Error {
  constructor(cause: unknown) {
    super("the commit of a write failed", { cause });
  }
}

/**
 * Sends a write's audit entries and its changes for the change feed in one statement, inside its
 * transaction: the entries are kept and the notifications delivered by its commit, never for a rollback.
 */
async function sendBeforeCommit(
  sql: Sql,
  appended: readonly NewAuditEntry[],
  changes: ReadonlySet<string>,
): Promise<void> {
  if (appended.length === 0 && changes.size === 0) return;
  const audit = appendedAuditEntries(appended, 3);
  const notify = "SELECT pg_notify($1, change) FROM unnest($2::text[]) AS change";
  await sql.rows(appended.length === 0 ? notify : `WITH ${audit.clause} ${notify}`, [
    CHANGES_CHANNEL,
    changes.size === 0 ? [] : [...changes, sentChange(Date.now())],
    ...(appended.length === 0 ? [] : audit.values),
  ]);
}

/**
 * The advisory lock key of `tx.tryLock(name)`: a 64-bit hash, the same on every replica, in a
 * namespace of its own (the schema, idempotency and send locks are others).
 */
function namedLockOf(name: string): string {
  return advisoryLockKey(`keydesk/lock/${name}`);
}

/**
 * The Store on PostgreSQL (README.md, "The store interface"): reads on the pool, outside any
 * transaction; a write is BEGIN … COMMIT on one pooled client, the repositories of its `tx` bound
 * to that client. The schema must be migrated first (migratePostgres); the SecretBox is the one
 * made from the data key, as on SQLite, so sealed values and digests are the same on both.
 */
export class PostgresStore implements Store {
  readonly accounts: CachedAccounts;
  readonly accountLookups: CacheLookups;
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
  /** Every replica's committed key, account and PIN changes (LISTEN/NOTIFY); `close()` ends it. */
  readonly changes: PostgresChangeFeed;
  readonly #pool: pg.Pool;
  readonly #box: SecretBox;
  readonly #keyListeners = new Set<KeyChangeListener>();
  readonly #queued: QueuedWrite[] = [];
  #openBatches = 0;

  constructor(pool: pg.Pool, box: SecretBox) {
    this.#pool = pool;
    this.#box = box;
    this.changes = new PostgresChangeFeed(pool.options);
    // An idle pooled connection that drops (a server restart, a terminated backend) is not a
    // request's failure: the pool discards it, the next request gets a new one. Without a listener
    // its "error" event would end the process.
    pool.on("error", () => {});
    const reads = this.#repositories(sqlOn(pool), [], () => {
      throw new Error("rows are written only inside store.write");
    });
    this.accounts = new CachedAccounts(reads.accounts, this.changes);
    this.accountLookups = this.accounts.lookups;
    ({
      apiKeys: this.apiKeys,
      audit: this.audit,
      idempotency: this.idempotency,
      usage: this.usage,
      sync: this.sync,
      tfa: this.tfa,
      tfaPins: this.tfaPins,
      ibssoSessions: this.ibssoSessions,
      meta: this.meta,
    } = reads);
    this.health = postgresHealth(sqlOn(pool));
  }

  /** `changed`: told each changed key's publicApiKey, account's id, or another row's change-feed payload. */
  #repositories(
    sql: Sql,
    appended: NewAuditEntry[],
    changed: (change: { publicApiKey: string; digest?: Buffer } | { accountId: number } | string) => void,
  ): StoreWrite {
    return {
      accounts: postgresAccounts(sql, (accountId) => changed({ accountId })),
      apiKeys: postgresApiKeys(sql, this.#box, this.#keyListeners, (publicApiKey, digest) =>
        changed({ publicApiKey, digest }),
      ),
      audit: postgresAudit(sql, appended),
      idempotency: postgresIdempotency(sql, this.#box),
      usage: postgresUsage(sql),
      sync: postgresSync(sql, this.#box),
      tfa: postgresTfa(sql),
      tfaPins: postgresTfaPins(
        sql,
        this.#box,
        (pinId) => changed(pinChange(pinId)),
        (note) => changed(pinEventChange(this.changes.origin, note)),
      ),
      ibssoSessions: postgresIbssoSessions(sql, this.#box),
      meta: postgresMeta(sql),
      authFailures: postgresBucketRows(sql),
      tryLock: async (name) =>
        (
          await sql.rows<{ locked: boolean }>("SELECT pg_try_advisory_xact_lock($1) AS locked", [
            namedLockOf(name),
          ])
        )[0]?.locked === true,
    };
  }

  #tellKeyListeners(digests: Iterable<Buffer>): void {
    if (this.#keyListeners.size === 0) return;
    for (const digest of digests) for (const listener of this.#keyListeners) listener(digest);
  }

  /**
   * Concurrent writes share transactions, as SQLite's group commit does (README.md, "Writes at
   * PostgreSQL's pace"): a write that finds fewer than MAX_OPEN_BATCHES transactions open starts
   * one; the writes that come meanwhile wait and go together in the next, run one after another on
   * its client, with one statement for all their audit entries and notifications and one commit
   * (one flush, and one turn of the cluster-wide lock a notifying commit takes). Each write is
   * answered once that commit is done.
   */
  write<T>(work: (tx: StoreWrite) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queued.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.#startBatches();
    });
  }

  #startBatches(): void {
    while (this.#openBatches < MAX_OPEN_BATCHES && this.#queued.length > 0) {
      const batch = this.#queued.splice(0, MAX_BATCH);
      this.#openBatches++;
      void this.#run(batch).finally(() => {
        this.#openBatches--;
        this.#startBatches();
      });
    }
  }

  async #run(batch: QueuedWrite[]): Promise<void> {
    if (batch.length > 1) {
      const outcome = await this.#transaction(batch.map((queued) => queued.work)).then(
        (results) => ({ results }),
        (error: unknown) => ({ error }),
      );
      if ("results" in outcome) {
        for (const [index, queued] of batch.entries()) queued.resolve(outcome.results[index]);
        return;
      }
      // A failure at the commit may have committed: then the batch's writes are not run again.
      if (outcome.error instanceof CommitFailure) {
        for (const queued of batch) queued.reject(outcome.error.cause);
        return;
      }
      // One write failed (its answer: a key not found, a conflict) or the batch lost a race, and
      // nothing was committed: each runs again alone, so a write's failure is its own. One after
      // another, in this batch's turn: MAX_OPEN_BATCHES holds for them too.
    }
    for (const queued of batch) {
      try {
        queued.resolve(await this.#alone(queued.work));
      } catch (error) {
        queued.reject(error);
      }
    }
  }

  /** One write in a transaction of its own, run again when it lost a race PostgreSQL detected. */
  async #alone(work: Work): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      try {
        return (await this.#transaction([work]))[0];
      } catch (failure) {
        const error = failure instanceof CommitFailure ? failure.cause : failure;
        if (attempt < WRITE_RETRIES && isRetryable(error)) continue;
        throw error;
      }
    }
  }

  /**
   * Runs `works` one after another in one transaction and commits it; a failure of the statement
   * that ends it (audit entries, notifications, COMMIT) rejects as a CommitFailure.
   */
  async #transaction(works: readonly Work[]): Promise<unknown[]> {
    /** Each changed key's digest by its publicApiKey (an HMAC: computed once per key). */
    const changedKeys = new Map<string, Buffer>();
    const changedAccounts = new Set<number>();
    let ending = false;
    try {
      return await inTransaction(this.#pool, async (client) => {
        /** The change feed's payloads, sent just before the commit (delivered by it). */
        const changes = new Set<string>();
        const appended: NewAuditEntry[] = [];
        const sql = sqlOn(client);
        const written = this.#repositories(sql, appended, (change) => {
          if (typeof change === "string") return void changes.add(change);
          if ("accountId" in change) {
            changedAccounts.add(change.accountId);
            this.accounts.forget(change.accountId);
            return void changes.add(accountChange(change.accountId));
          }
          let digest = changedKeys.get(change.publicApiKey);
          if (!digest) {
            digest = change.digest ?? this.#box.digest(change.publicApiKey);
            changedKeys.set(change.publicApiKey, digest);
          }
          changes.add(keyChange(digest));
          this.#tellKeyListeners([digest]);
        });
        const tx = { ...written, sync: batchLinkLookups(written.sync) };
        const results: unknown[] = [];
        for (const work of works) results.push(await work(tx));
        ending = true;
        await sendBeforeCommit(sql, appended, changes);
        return results;
      });
    } catch (error) {
      throw ending ? new CommitFailure(error) : error;
    } finally {
      // Again after the commit (or the rollback): a cache that reloaded a key while the write
      // was open read it as it was before, and must not keep that.
      this.#tellKeyListeners(changedKeys.values());
      for (const accountId of changedAccounts) this.accounts.forget(accountId);
    }
  }

  /** Ends the change feed's LISTEN connection (the pool is its owner's to end). */
  async close(): Promise<void> {
    await this.changes.close();
  }
}
