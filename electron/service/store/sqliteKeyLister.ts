import { setImmediate as nextTurn } from "node:timers/promises";
import { apiKeyJson, type ListedKey } from "../domain/apiKeyRecords.ts";
import type { KeyLister } from "../keyListing.ts";
import type { ApiKeyStore } from "./apiKeyStore.ts";
import type { ApiKeyFilter, ListExtras } from "./store.ts";

/**
 * Reading many keys without holding the event loop: the scan goes in small steps (a few hundred
 * keys decrypted, or a few thousand rows looked at) with a turn of the event loop between them,
 * so that an App-authorized call arriving during a list of a million keys waits for one step at
 * most, never for the whole list.
 */

/**
 * Keys decrypted and serialized per step: well under a millisecond of work.
 * @internal Exported for tests.
 */
export const STEP_KEYS = 128;
/**
 * Rows a filter looks at per step when it matches little (name substring, permission).
 * @internal Exported for tests.
 */
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

/**
 * Up to `limit` keys after row `after`, and whether more follow (read one key further).
 * @internal Exported for tests.
 */
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

/**
 * How many keys of the account match, counted step by step.
 * @internal Exported for tests.
 */
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
