import { setImmediate as nextTurn } from "node:timers/promises";
import { apiKeyJson, type ListedKey } from "./domain/apiKeyRecords.ts";
import type { ApiKeyStore } from "./store/apiKeyStore.ts";
import type { ApiKeyFilter, ListExtras } from "./store/store.ts";

/**
 * Reading many keys without holding the event loop: the scan goes in small steps (a few hundred
 * keys decrypted, or a few thousand rows looked at) with a turn of the event loop between them,
 * so that an App-authorized call arriving during a list of a million keys waits for one step at
 * most, never for the whole list.
 */

/** Keys decrypted and serialized per step: well under a millisecond of work. */
export const STEP_KEYS = 128;
/** Rows a filter looks at per step when it matches little (name substring, permission). */
export const STEP_ROWS = 4096;

export interface ScanOptions {
  /** The row id the scan starts after; 0 for the beginning. */
  after?: number;
  /** Stops after this many keys. */
  max?: number;
  /** Ends the scan at the next step (the service is stopping, the client went away). */
  signal?: AbortSignal;
  /** What the keys carry beyond the spec's fields. */
  extras?: ListExtras;
}

/** The matching keys in creation order, step by step (an empty step only at the very end). */
export async function* scanKeys(
  store: ApiKeyStore,
  accountId: number,
  filter: ApiKeyFilter,
  options: ScanOptions = {},
): AsyncGenerator<{ keys: ListedKey[]; lastId: number }> {
  let after: number | null = options.after ?? 0;
  let left = options.max ?? Number.POSITIVE_INFINITY;
  let first = true;
  while (after !== null && left > 0) {
    if (!first) await nextTurn();
    first = false;
    options.signal?.throwIfAborted();
    const step = store.scan(accountId, filter, after, Math.min(STEP_KEYS, left), STEP_ROWS, options.extras);
    const lastId = step.keys.length > 0 ? (step.keys[step.keys.length - 1] as ListedKey).id : after;
    after = step.after;
    left -= step.keys.length;
    if (step.keys.length > 0) yield { keys: step.keys, lastId };
  }
}

/** Up to `limit` keys after row `after`, and whether more follow (read one key further). */
export async function readPage(
  store: ApiKeyStore,
  accountId: number,
  filter: ApiKeyFilter,
  after: number,
  limit: number,
  signal?: AbortSignal,
  extras?: ListExtras,
): Promise<{ keys: ListedKey[]; more: boolean }> {
  const keys: ListedKey[] = [];
  const options = { after, max: limit + 1, ...(signal && { signal }), ...(extras && { extras }) };
  for await (const step of scanKeys(store, accountId, filter, options)) keys.push(...step.keys);
  return keys.length > limit ? { keys: keys.slice(0, limit), more: true } : { keys, more: false };
}

/** How many keys of the account match, counted step by step. */
export async function countKeys(
  store: ApiKeyStore,
  accountId: number,
  filter: ApiKeyFilter,
  signal?: AbortSignal,
): Promise<number> {
  let total = 0;
  let after: number | null = 0;
  let first = true;
  while (after !== null) {
    if (!first) await nextTurn();
    first = false;
    signal?.throwIfAborted();
    // Rows a filter must read cost more than entries of an index.
    const readsRows =
      filter.nameContains !== undefined ||
      filter.permission !== undefined ||
      filter.unusedSince !== undefined;
    const step = store.countStep(accountId, filter, after, readsRows ? STEP_ROWS : STEP_ROWS * 16);
    total += step.count;
    after = step.after;
  }
  return total;
}

/** A page of keys as JSON texts, and whether more follow. */
export interface ListedPage {
  texts: string[];
  /** The row id of the last key (the cursor's position); undefined for an empty page. */
  lastId: number | undefined;
  more: boolean;
}

/** Reads lists for the service: in its own thread (in steps) or in a worker thread. */
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

/** Lists read in the service's own thread, in steps with a turn of the event loop between them. */
export function inThreadLister(store: ApiKeyStore): KeyLister {
  return {
    async *pieces(account, filter, signal) {
      let comma = "";
      const options = { ...(signal && { signal }), ...(account.extras && { extras: account.extras }) };
      for await (const step of scanKeys(store, account.id, filter, options)) {
        yield comma + step.keys.map((key) => apiKeyJson(account.accountKey, key)).join(",");
        comma = ",";
      }
    },
    async page(account, filter, after, limit, signal) {
      const { keys, more } = await readPage(store, account.id, filter, after, limit, signal, account.extras);
      return {
        texts: keys.map((key) => apiKeyJson(account.accountKey, key)),
        lastId: keys.at(-1)?.id,
        more,
      };
    },
    count: (accountId, filter, signal) => countKeys(store, accountId, filter, signal),
    close: async () => {},
  };
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
