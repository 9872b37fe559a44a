import type { ApiKeyFilter, ListExtras } from "./store/store.ts";

/** What the service and its key list workers (keyListWorker.ts) tell each other. */

export interface KeyListWorkerInit {
  databaseFile: string;
  dataKey: Uint8Array;
  /**
   * A worker for the pieces of full lists: it runs only on CPU time nothing else wants (Linux
   * SCHED_IDLE). Otherwise (pages, counts) it runs at a lower priority than the service's thread.
   */
  background: boolean;
}

interface ScanRequest {
  id: number;
  accountId: number;
  accountKey: string;
  filter: ApiKeyFilter;
  /** The scan position to go on from: 0, or a `next` of an earlier answer. */
  after: number;
  maxKeys: number;
  /** The answer stops after the step that passes this many characters of text. */
  maxBytes: number;
  extras?: ListExtras;
}

export type KeyListRequest =
  /** Keys as one piece of a list's UTF-8 text (separated by commas; led by one when `comma`). */
  | (ScanRequest & { kind: "chunk"; comma: boolean })
  /** Keys one by one with their row ids, for a page and its cursor. */
  | (ScanRequest & { kind: "page" })
  /** How many of the next `rows` rows match. */
  | { id: number; kind: "count"; accountId: number; filter: ApiKeyFilter; after: number; rows: number }
  /** Where the next windows of `rows` rows of the account end, up to `count` of them. */
  | { id: number; kind: "bounds"; accountId: number; after: number; rows: number; count: number }
  /**
   * The matching keys among the account's rows after `after`, up to row id `upTo`, as one
   * piece of a list's UTF-8 text, every key led by a comma (pieces are read side by side, so none
   * knows whether one before it was empty).
   */
  | {
      id: number;
      kind: "window";
      accountId: number;
      accountKey: string;
      filter: ApiKeyFilter;
      after: number;
      upTo: number;
      extras?: ListExtras;
    };

export type KeyListAnswer =
  /** `bytes` is transferred, not copied: the service's thread writes it to the socket as it is. */
  | { id: number; kind: "chunk"; bytes: Uint8Array; count: number; next: number | null }
  | { id: number; kind: "page"; texts: string[]; ids: number[]; next: number | null }
  | { id: number; kind: "count"; count: number; next: number | null }
  /** `last`: the account has fewer rows left after the last end than a window holds. */
  | { id: number; kind: "bounds"; ends: number[]; last: boolean }
  | { id: number; kind: "window"; bytes: Uint8Array; count: number }
  | { id: number; kind: "error"; message: string; code?: string | undefined };

/** The first message of every worker: whether it got the background priority it was asked for. */
export interface KeyListWorkerReady {
  kind: "ready";
  idle: boolean;
}

/**
 * A window's buffer handed back once the socket has written it: the worker reads its next window
 * into it. Without this, every window would be new memory outside the heap, and the service's
 * garbage collector would run full collections every few hundred milliseconds of a long list.
 */
export interface KeyListRecycle {
  kind: "recycle";
  buffer: ArrayBuffer;
}
