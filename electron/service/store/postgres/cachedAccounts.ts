import type { Account } from "../../domain/accounts.ts";
import { ReadThroughCache } from "../readThroughCache.ts";
import type { AccountReads, CacheLookups, ChangeFeed } from "../store.ts";

/** Accounts kept at most (the least recently loaded go first). */
const CAPACITY = 10_000;
/**
 * How long an account read is answered from memory at most. The change feed tells every change
 * made through a replica or the CLI at once; this bounds a change made around them (an operator's
 * `UPDATE accounts` in SQL, which notifies nobody): an old password then works for at most this long.
 * @internal Exported for tests.
 */
export const ACCOUNT_CACHE_MS = 10_000;

/**
 * Account reads by username and by id answered from memory: every Basic-authenticated request
 * reads its account by username, and on PostgreSQL that read was a round trip of its own on
 * every create. An entry goes when the change feed names its account (any replica's write, its
 * own included), when `forget` does (this replica's write, at once, before the feed hears it),
 * and with everything else whenever the feed cannot hear changes (ReadThroughCache).
 */
export class CachedAccounts implements AccountReads {
  readonly #reads: AccountReads;
  readonly #changes: ChangeFeed;
  readonly #now: () => number;
  #entries: ReadThroughCache<Account> | undefined;
  /** Hits and misses of every read (the metrics' `accounts` cache). */
  readonly lookups: CacheLookups = { hits: 0, misses: 0 };

  /** The feed is listened to from the first read on: a store that is only written (a CLI command) opens no LISTEN connection. */
  constructor(reads: AccountReads, changes: ChangeFeed, now: () => number = Date.now) {
    this.#reads = reads;
    this.#changes = changes;
    this.#now = now;
  }

  /** Drops the account with this id, under every key it was loaded by. */
  forget(accountId: number): void {
    this.#entries?.deleteWhere((account) => account.id === accountId);
  }

  byUsername(username: string): Promise<Account | undefined> {
    return this.#cached(`username:${username}`, () => this.#reads.byUsername(username));
  }

  byId(id: number): Promise<Account | undefined> {
    return this.#cached(`id:${id}`, () => this.#reads.byId(id));
  }

  byAccountKey(accountKey: string): Promise<Account | undefined> {
    return this.#reads.byAccountKey(accountKey);
  }

  list(): Promise<Account[]> {
    return this.#reads.list();
  }

  manages(ancestorId: number, accountId: number): Promise<boolean> {
    return this.#reads.manages(ancestorId, accountId);
  }

  #cached(key: string, load: () => Promise<Account | undefined>): Promise<Account | undefined> {
    if (!this.#entries) {
      this.#entries = new ReadThroughCache(
        this.#changes,
        { capacity: CAPACITY, maxAgeMs: ACCOUNT_CACHE_MS, now: this.#now },
        this.lookups,
      );
      this.#changes.onAccountChange((accountId) => this.forget(accountId));
    }
    const cached = this.#entries.peek(key);
    return cached ? Promise.resolve(cached) : this.#entries.load(key, load);
  }
}
