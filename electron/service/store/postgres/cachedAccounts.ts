import type { Account } from "../accountStore.ts";
import { ReadThroughCache } from "../readThroughCache.ts";
import type { AccountReads, ChangeFeed } from "../store.ts";

/** Accounts kept at most (the least recently loaded go first). */
const CAPACITY = 10_000;

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
  #entries: ReadThroughCache<Account> | undefined;

  /** The feed is listened to from the first read on: a store that is only written (a CLI command) opens no LISTEN connection. */
  constructor(reads: AccountReads, changes: ChangeFeed) {
    this.#reads = reads;
    this.#changes = changes;
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
      this.#entries = new ReadThroughCache(this.#changes, CAPACITY);
      this.#changes.onAccountChange((accountId) => this.forget(accountId));
    }
    const cached = this.#entries.peek(key);
    return cached ? Promise.resolve(cached) : this.#entries.load(key, load);
  }
}
