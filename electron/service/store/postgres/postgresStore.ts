import type pg from "pg";
import type { SecretBox } from "../../crypto/secretBox.ts";
import type { KeyChangeListener } from "../apiKeyStore.ts";
import { authFailuresOn } from "../authFailureStore.ts";
import type {
  AccountReads,
  ApiKeyReads,
  AuditReads,
  IdempotencyReads,
  MetaReads,
  Store,
  StoreHealth,
  StoreWrite,
  SyncReads,
  TfaPinReads,
  TfaReads,
  UsageReads,
} from "../store.ts";
import { postgresAccounts } from "./postgresAccounts.ts";
import { postgresApiKeys } from "./postgresApiKeys.ts";
import { postgresAudit } from "./postgresAudit.ts";
import { postgresBucketRows } from "./postgresAuthFailures.ts";
import {
  accountChange,
  keyChange,
  notifyChanges,
  PostgresChangeFeed,
  pinChange,
  pinEventChange,
} from "./postgresChangeFeed.ts";
import { postgresIdempotency } from "./postgresIdempotency.ts";
import { postgresHealth, postgresMeta } from "./postgresMeta.ts";
import { postgresSync } from "./postgresSync.ts";
import { postgresTfa } from "./postgresTfa.ts";
import { postgresTfaPins } from "./postgresTfaPins.ts";
import { postgresUsage } from "./postgresUsage.ts";
import { advisoryLockKey, inTransaction, RETRYABLE, type Sql, sqlOn, sqlState } from "./sql.ts";

/** How many times a write that lost a race (serialization failure, deadlock) runs again. */
export const WRITE_RETRIES = 3;

/**
 * The advisory lock key of `tx.tryLock(name)`: a 64-bit hash, the same on every replica, in a
 * namespace of its own (the schema, idempotency and send locks are others).
 */
export function namedLockOf(name: string): string {
  return advisoryLockKey(`keydesk/lock/${name}`);
}

/**
 * The Store on PostgreSQL (README.md, "The store interface"): reads on the pool, outside any
 * transaction; a write is BEGIN … COMMIT on one pooled client, the repositories of its `tx` bound
 * to that client. The schema must be migrated first (migratePostgres); the SecretBox is the one
 * made from the data key, as on SQLite, so sealed values and digests are the same on both.
 */
export class PostgresStore implements Store {
  readonly accounts: AccountReads;
  readonly apiKeys: ApiKeyReads;
  readonly audit: AuditReads;
  readonly idempotency: IdempotencyReads;
  readonly usage: UsageReads;
  readonly sync: SyncReads;
  readonly tfa: TfaReads;
  readonly tfaPins: TfaPinReads;
  readonly meta: MetaReads;
  readonly health: StoreHealth;
  /** Every replica's committed key, account and PIN changes (LISTEN/NOTIFY); `close()` ends it. */
  readonly changes: PostgresChangeFeed;
  readonly #pool: pg.Pool;
  readonly #box: SecretBox;
  readonly #keyListeners = new Set<KeyChangeListener>();

  constructor(pool: pg.Pool, box: SecretBox) {
    this.#pool = pool;
    this.#box = box;
    this.changes = new PostgresChangeFeed(pool.options);
    // An idle pooled connection that drops (a server restart, a terminated backend) is not a
    // request's failure: the pool discards it, the next request gets a new one. Without a listener
    // its "error" event would end the process.
    pool.on("error", () => {});
    const reads = this.#repositories(sqlOn(pool), () => {
      throw new Error("rows are written only inside store.write");
    });
    ({
      accounts: this.accounts,
      apiKeys: this.apiKeys,
      audit: this.audit,
      idempotency: this.idempotency,
      usage: this.usage,
      sync: this.sync,
      tfa: this.tfa,
      tfaPins: this.tfaPins,
      meta: this.meta,
    } = reads);
    this.health = postgresHealth(sqlOn(pool));
  }

  /** `changed`: told each changed key's publicApiKey, or another row's change-feed payload. */
  #repositories(sql: Sql, changed: (change: { publicApiKey: string } | string) => void): StoreWrite {
    return {
      accounts: postgresAccounts(sql, (id) => changed(accountChange(id))),
      apiKeys: postgresApiKeys(sql, this.#box, this.#keyListeners, (publicApiKey) =>
        changed({ publicApiKey }),
      ),
      audit: postgresAudit(sql),
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
      meta: postgresMeta(sql),
      authFailures: authFailuresOn(postgresBucketRows(sql)),
      tryLock: async (name) =>
        (
          await sql.rows<{ locked: boolean }>("SELECT pg_try_advisory_xact_lock($1) AS locked", [
            namedLockOf(name),
          ])
        )[0]?.locked === true,
    };
  }

  #tellKeyListeners(publicApiKeys: Iterable<string>): void {
    if (this.#keyListeners.size === 0) return;
    for (const publicApiKey of publicApiKeys) {
      const digest = this.#box.digest(publicApiKey);
      for (const listener of this.#keyListeners) listener(digest);
    }
  }

  async write<T>(work: (tx: StoreWrite) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const changedKeys = new Set<string>();
      try {
        return await inTransaction(this.#pool, async (client) => {
          /** The change feed's payloads, sent just before the commit (delivered by it). */
          const changes = new Set<string>();
          const tx = this.#repositories(sqlOn(client), (change) => {
            if (typeof change === "string") return void changes.add(change);
            changedKeys.add(change.publicApiKey);
            changes.add(keyChange(this.#box.digest(change.publicApiKey)));
            this.#tellKeyListeners([change.publicApiKey]);
          });
          const result = await work(tx);
          await notifyChanges(client, changes);
          return result;
        });
      } catch (error) {
        if (attempt < WRITE_RETRIES && RETRYABLE.has(sqlState(error) ?? "")) continue;
        throw error;
      } finally {
        // Again after the commit (or the rollback): a cache that reloaded a key while the write
        // was open read it as it was before, and must not keep that.
        this.#tellKeyListeners(changedKeys);
      }
    }
  }

  /** Ends the change feed's LISTEN connection (the pool is its owner's to end). */
  async close(): Promise<void> {
    await this.changes.close();
  }
}
