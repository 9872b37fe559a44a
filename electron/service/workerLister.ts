import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { KeyLister, ListedAccount } from "./keyListing.ts";
import type {
  KeyListAnswer,
  KeyListRecycle,
  KeyListRequest,
  KeyListWorkerInit,
  KeyListWorkerReady,
} from "./keyListProtocol.ts";
import { type ApiKeyFilter, isSorted } from "./store/store.ts";

/**
 * Lists read by worker threads (keyListWorker.ts), each on its own read-only connection: the
 * service's thread only passes requests and finished text, so a list of a million keys neither
 * stalls other requests nor fills the service's heap.
 *
 * - One foreground worker (nice 10) reads pages, counts, short lists and the first piece of
 *   every list.
 * - A list longer than one piece goes on in windows of rows read side by side by background
 *   workers, which run only on CPU time nothing else wants (SCHED_IDLE on Linux): one, or one
 *   per core up to two where the first got that priority. The service writes the windows in
 *   order, a few ahead of the socket, never more.
 *
 * Workers start on first use and again after they die; the requests a dead worker had are
 * failed (their answers end as a 500 or a cut-short stream).
 */

/** Keys and characters per piece of a list read by the foreground worker. */
const PIECE_KEYS = 1024;
const PIECE_CHARACTERS = 256 * 1024;
/** Rows per window of a list read side by side: every window is one scan step in the worker. */
const WINDOW_ROWS = 1024;
/** Window ends asked for at a time. */
const BOUNDS_PER_REQUEST = 64;
/** Windows in flight per background worker: one being read while one waits to be written. */
const WINDOWS_AHEAD_PER_WORKER = 2;
/** Rows a count looks at per request, so that counts and lists take turns in the worker. */
const COUNT_ROWS = 65_536;
const MAX_BACKGROUND_WORKERS = 2;
/**
 * A young generation of 8 MB per worker: a worker allocates fast and throws it all away, so V8
 * grew each one's to its default maximum, and the service's memory by up to 180 MB over a few
 * lists of a million keys. Collections in a worker hold no request up; the list took no longer.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8 };

let bundledWorkerUrl: URL | undefined;

/** The bundled app names its worker file (electron/main/index.ts); built with electron.vite.config.ts. */
export function setBundledKeyListWorker(url: URL): void {
  bundledWorkerUrl = url;
}

/** Where the worker's module is: beside this one when run from source, else as the bundle said. */
export function keyListWorkerUrl(): URL | undefined {
  if (import.meta.url.endsWith(".ts")) return new URL("./keyListWorker.ts", import.meta.url);
  return bundledWorkerUrl;
}

type Request = KeyListRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;
type Answer<K extends KeyListAnswer["kind"]> = Extract<KeyListAnswer, { kind: K }>;

/** One worker thread, started when first asked and again after it died. */
interface WorkerSlot {
  ask<K extends KeyListAnswer["kind"]>(request: Request, signal?: AbortSignal): Promise<Answer<K>>;
  /** Hands a window's buffer back to the worker that filled it, if that worker still runs. */
  recycle(buffer: ArrayBuffer): void;
  /** Whether the running worker reported the idle priority (false until it reported). */
  readonly idle: boolean;
  /** Whether a worker thread runs, and whether it has requests not yet answered. */
  readonly running: boolean;
  readonly busy: boolean;
  close(error: Error): Promise<void>;
}

function workerSlot(workerUrl: URL, init: KeyListWorkerInit): WorkerSlot {
  let worker: Worker | undefined;
  let idle = false;
  let nextId = 1;
  /** The worker each window's buffer came from. */
  const filledBy = new WeakMap<ArrayBuffer, Worker>();
  const pending = new Map<
    number,
    { worker: Worker; resolve(answer: KeyListAnswer): void; reject(error: Error): void }
  >();

  /** Fails the requests sent to one worker, or to any when `of` is undefined. */
  const failAll = (of: Worker | undefined, error: Error) => {
    for (const [id, waiter] of pending) {
      if (of !== undefined && waiter.worker !== of) continue;
      pending.delete(id);
      waiter.reject(error);
    }
  };
  const started = (): Worker => {
    if (worker) return worker;
    const created = new Worker(workerUrl, { workerData: init, resourceLimits: WORKER_LIMITS });
    // An idle worker never keeps the process alive; close() ends it on a clean stop.
    created.unref();
    created.on("message", (message: KeyListAnswer | KeyListWorkerReady) => {
      if (message.kind === "ready") {
        if (worker === created) idle = message.idle;
        return;
      }
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (message.kind === "error") waiter?.reject(listFailure(message.message, message.code));
      else {
        if (message.kind === "window" || message.kind === "chunk") {
          filledBy.set(message.bytes.buffer as ArrayBuffer, created);
        }
        waiter?.resolve(message);
      }
    });
    const gone = (error: Error) => {
      if (worker === created) {
        worker = undefined;
        idle = false;
      }
      failAll(created, error);
    };
    created.on("error", gone);
    created.on("exit", (code) => gone(new Error(`the key list worker stopped (exit code ${code})`)));
    worker = created;
    return created;
  };
  return {
    get idle() {
      return idle;
    },
    get running() {
      return worker !== undefined;
    },
    get busy() {
      return pending.size > 0;
    },
    recycle(buffer) {
      if (worker === undefined || filledBy.get(buffer) !== worker || buffer.byteLength === 0) return;
      filledBy.delete(buffer);
      const message: KeyListRecycle = { kind: "recycle", buffer };
      worker.postMessage(message, [buffer]);
    },
    ask<K extends KeyListAnswer["kind"]>(request: Request, signal?: AbortSignal) {
      signal?.throwIfAborted();
      const id = nextId++;
      const target = started();
      const answer = new Promise<KeyListAnswer>((resolve, reject) =>
        pending.set(id, { worker: target, resolve, reject }),
      );
      target.postMessage({ ...request, id });
      return answer as Promise<Answer<K>>;
    },
    async close(error) {
      const running = worker;
      worker = undefined;
      idle = false;
      failAll(undefined, error);
      await running?.terminate();
    },
  };
}

/**
 * Whether a list can be read in windows of row ids side by side: not one in another order than
 * creation, nor an exact name or publicApiKey lookup (read through its index, a few keys at most).
 */
const inRowWindows = (filter: ApiKeyFilter) =>
  filter.name === undefined && filter.publicApiKey === undefined && !isSorted(filter.sort);

export function workerLister(workerUrl: URL, init: Omit<KeyListWorkerInit, "background">): KeyLister {
  const foreground = workerSlot(workerUrl, { ...init, background: false });
  const background: WorkerSlot[] = [];
  const backgroundCount = Math.min(MAX_BACKGROUND_WORKERS, availableParallelism());
  /** The background workers to use now: a second only once the first runs at idle priority. */
  const backgroundWorkers = (): WorkerSlot[] => {
    if (background.length === 0) background.push(workerSlot(workerUrl, { ...init, background: true }));
    const first = background[0] as WorkerSlot;
    while (first.idle && background.length < backgroundCount) {
      background.push(workerSlot(workerUrl, { ...init, background: true }));
    }
    return first.idle ? background : [first];
  };

  /**
   * The worker each piece's buffer came from, for recycle(): written pieces go back to be filled
   * again, so a list leaves no buffers behind for the service's collector (a full collection of
   * the service's thread, several ms, came every few dozen short lists).
   */
  const filledSlots = new WeakMap<ArrayBuffer, WorkerSlot>();

  /** The rest of a list after row `from`, in windows read side by side, written in order. */
  async function* windows(
    account: ListedAccount,
    filter: ApiKeyFilter,
    from: number,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<Uint8Array> {
    // Asked again before each window: a second worker joins the list as soon as the first has
    // reported its idle priority (it is only starting when the service's first long list begins).
    let workers: WorkerSlot[];
    const ends: number[] = [];
    let boundsFrom = from;
    let boundsDone = false;
    let after = from;
    let dispatched = 0;
    const inFlight: { worker: WorkerSlot; answer: Promise<Answer<"window">> }[] = [];
    try {
      for (;;) {
        for (;;) {
          workers = backgroundWorkers();
          if (inFlight.length >= workers.length * WINDOWS_AHEAD_PER_WORKER) break;
          if (ends.length === 0 && !boundsDone) {
            const bounds = await (workers[0] as WorkerSlot).ask<"bounds">(
              {
                kind: "bounds",
                accountId: account.id,
                after: boundsFrom,
                rows: WINDOW_ROWS,
                count: BOUNDS_PER_REQUEST,
              },
              signal,
            );
            ends.push(...bounds.ends);
            boundsFrom = bounds.ends.at(-1) ?? boundsFrom;
            if (bounds.last) {
              // The last window reaches past the end: keys added while the list is read are in it.
              ends.push(Number.MAX_SAFE_INTEGER);
              boundsDone = true;
            }
          }
          const upTo = ends.shift();
          if (upTo === undefined) break;
          const worker = workers[dispatched++ % workers.length] as WorkerSlot;
          const answer = worker.ask<"window">(
            {
              kind: "window",
              accountId: account.id,
              accountKey: account.accountKey,
              filter,
              after,
              upTo,
              ...(account.extras && { extras: account.extras }),
            },
            signal,
          );
          inFlight.push({ worker, answer });
          after = upTo;
        }
        const next = inFlight.shift();
        if (!next) return;
        const window = await next.answer;
        filledSlots.set(window.bytes.buffer as ArrayBuffer, next.worker);
        if (window.count > 0) yield window.bytes;
      }
    } finally {
      // A list given up early leaves no rejected request behind unhandled.
      for (const waiting of inFlight) waiting.answer.catch(() => undefined);
    }
  }

  return {
    async *pieces(account, filter, signal) {
      const piece = (after: number, comma: boolean) =>
        foreground.ask<"chunk">(
          {
            kind: "chunk",
            comma,
            accountId: account.id,
            accountKey: account.accountKey,
            filter,
            after,
            maxKeys: PIECE_KEYS,
            maxBytes: PIECE_CHARACTERS,
            ...(account.extras && { extras: account.extras }),
          },
          signal,
        );
      const filled = (chunk: Answer<"chunk">) => {
        filledSlots.set(chunk.bytes.buffer as ArrayBuffer, foreground);
        return Buffer.from(chunk.bytes.buffer, chunk.bytes.byteOffset, chunk.bytes.byteLength);
      };
      const first = await piece(0, false);
      if (first.count > 0) yield filled(first);
      if (first.next === null) return;
      if (!inRowWindows(filter)) {
        // Piece after piece from the foreground worker, the next asked for while one is written.
        let comma = first.count > 0;
        let coming: Promise<Answer<"chunk">> | undefined = piece(first.next, comma);
        try {
          while (coming) {
            const read: Answer<"chunk"> = await coming;
            comma ||= read.count > 0;
            coming = read.next === null ? undefined : piece(read.next, comma);
            if (read.count > 0) yield filled(read);
          }
        } finally {
          coming?.catch(() => undefined);
        }
        return;
      }
      // Windows lead every key with a comma: the first key of the list goes without it.
      let leading = first.count === 0;
      for await (const bytes of windows(account, filter, first.next, signal)) {
        const part = leading ? bytes.subarray(1) : bytes;
        leading = false;
        yield Buffer.from(part.buffer, part.byteOffset, part.byteLength);
      }
    },
    async page(account, filter, after, limit, signal) {
      const read = await foreground.ask<"page">(
        {
          kind: "page",
          accountId: account.id,
          accountKey: account.accountKey,
          filter,
          after,
          // One key further tells whether more follow.
          maxKeys: limit + 1,
          maxBytes: Number.POSITIVE_INFINITY,
          ...(account.extras && { extras: account.extras }),
        },
        signal,
      );
      const more = read.texts.length > limit;
      const texts = more ? read.texts.slice(0, limit) : read.texts;
      return { texts, lastId: read.ids[texts.length - 1], more };
    },
    async count(accountId, filter, signal) {
      let total = 0;
      let after: number | null = 0;
      while (after !== null) {
        const request: Request = { kind: "count", accountId, filter, after, rows: COUNT_ROWS };
        const step: Answer<"count"> = await foreground.ask<"count">(request, signal);
        total += step.count;
        after = step.next;
      }
      return total;
    },
    workerCounts() {
      let running = 0;
      let busy = 0;
      for (const slot of [foreground, ...background]) {
        if (slot.running) running++;
        if (slot.busy) busy++;
      }
      return { running, busy };
    },
    recycle(piece) {
      const buffer = piece.buffer as ArrayBuffer;
      const slot = filledSlots.get(buffer);
      filledSlots.delete(buffer);
      slot?.recycle(buffer);
    },
    async close() {
      const stopping = new Error("the service is stopping");
      await Promise.all([foreground, ...background].map((slot) => slot.close(stopping)));
    },
  };
}

/** The worker's failure, with SQLite's code kept so that the service can say what it means. */
function listFailure(message: string, code: string | undefined): Error {
  return Object.assign(new Error(`the key list failed: ${message}`), code === undefined ? {} : { code });
}
