import { apiKeyJson, type ListedKey } from "./domain/apiKeyRecords.ts";
import type { ApiKeyFilter, ListExtras } from "./store/store.ts";

/** A page of keys as JSON texts, and whether more follow. */
interface ListedPage {
  texts: string[];
  /** The row id of the last key (the cursor's position); undefined for an empty page. */
  lastId: number | undefined;
  more: boolean;
}

/**
 * Reads lists for the service. On SQLite in its own thread, in steps (store/sqliteKeyLister.ts), or
 * in worker threads (workerLister.ts); on PostgreSQL a page at a time (pagedLister).
 */
export interface KeyLister {
  /** The matching keys' JSON texts, comma-separated, piece by piece (every piece after the first led by a comma). */
  pieces(
    account: ListedAccount,
    filter: ApiKeyFilter,
    signal?: AbortSignal,
  ): AsyncGenerator<string | Uint8Array>;
  page(
    account: ListedAccount,
    filter: ApiKeyFilter,
    after: number,
    limit: number,
    signal?: AbortSignal,
  ): Promise<ListedPage>;
  count(accountId: number, filter: ApiKeyFilter, signal?: AbortSignal): Promise<number>;
  /**
   * A piece of `pieces` that the socket has written and nothing refers to any more: its memory
   * may be used again (a no-op for pieces the lister does not reuse).
   */
  recycle?(piece: Uint8Array): void;
  /** The worker threads started and those with a request now (the metrics); absent without workers. */
  workerCounts?(): { running: number; busy: number };
  close(): Promise<void>;
}

export interface ListedAccount {
  id: number;
  accountKey: string;
  /** What the listed keys carry beyond the spec's fields (include=). */
  extras?: ListExtras;
}

/**
 * A store that reads lists as keyset pages itself (PostgreSQL's PostgresKeyPages): the filtering
 * and ordering are the database's work, in its own process.
 */
export interface KeyPageReader {
  page(
    accountId: number,
    filter: ApiKeyFilter,
    after: number,
    limit: number,
    extras?: ListExtras,
  ): Promise<{ keys: ListedKey[]; more: boolean }>;
  pages(
    accountId: number,
    filter: ApiKeyFilter,
    extras?: ListExtras,
    signal?: AbortSignal,
  ): AsyncGenerator<ListedKey[]>;
  count(accountId: number, filter: ApiKeyFilter): Promise<number>;
}

/**
 * Lists read a page at a time from a KeyPageReader: between two pages the service's thread waits
 * for the database, so no thread of its own is needed to keep the event loop free.
 */
export function pagedLister(reader: KeyPageReader): KeyLister {
  return {
    async *pieces(account, filter, signal) {
      let comma = "";
      for await (const keys of reader.pages(account.id, filter, account.extras, signal)) {
        yield comma + keys.map((key) => apiKeyJson(account.accountKey, key)).join(",");
        comma = ",";
      }
    },
    async page(account, filter, after, limit, signal) {
      signal?.throwIfAborted();
      const { keys, more } = await reader.page(account.id, filter, after, limit, account.extras);
      return {
        texts: keys.map((key) => apiKeyJson(account.accountKey, key)),
        lastId: keys.at(-1)?.id,
        more,
      };
    },
    count: (accountId, filter, signal) => {
      signal?.throwIfAborted();
      return reader.count(accountId, filter);
    },
    close: async () => {},
  };
}
