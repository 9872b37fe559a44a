import { Worker } from "node:worker_threads";
import type { KeyLister } from "./keyListing.ts";
import type { KeyListAnswer, KeyListRequest, KeyListWorkerInit } from "./keyListProtocol.ts";

/**
 * Lists read by a worker thread (keyListWorker.ts) on its own read-only connection: the service's
 * thread only passes requests and finished text, so a list of a million keys neither stalls other
 * requests nor fills the service's heap. The worker is started on first use and started again if
 * it dies; the requests it had are failed (their answers end as a 500 or a cut-short stream).
 */

/** Keys and characters per piece of a full list: large enough that messages cost little. */
const PIECE_KEYS = 1024;
const PIECE_CHARACTERS = 256 * 1024;
/** Rows a count looks at per request, so that counts and lists take turns in the worker. */
const COUNT_ROWS = 65_536;

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

type Pending = { worker: Worker; resolve(answer: KeyListAnswer): void; reject(error: Error): void };
type Request = KeyListRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;

export function workerLister(workerUrl: URL, init: KeyListWorkerInit): KeyLister {
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  /** Fails the requests sent to one worker (a worker started since keeps its own). */
  const failAll = (of: Worker | undefined, error: Error) => {
    for (const [id, waiter] of pending) {
      if (of !== undefined && waiter.worker !== of) continue;
      pending.delete(id);
      waiter.reject(error);
    }
  };
  const started = (): Worker => {
    if (worker) return worker;
    const created = new Worker(workerUrl, { workerData: init });
    // An idle worker never keeps the process alive; close() ends it on a clean stop.
    created.unref();
    created.on("message", (answer: KeyListAnswer) => {
      const waiter = pending.get(answer.id);
      pending.delete(answer.id);
      if (answer.kind === "error") waiter?.reject(new Error(`the key list failed: ${answer.message}`));
      else waiter?.resolve(answer);
    });
    created.on("error", (error) => {
      if (worker === created) worker = undefined;
      failAll(created, error);
    });
    created.on("exit", (code) => {
      if (worker === created) worker = undefined;
      failAll(created, new Error(`the key list worker stopped (exit code ${code})`));
    });
    worker = created;
    return created;
  };
  const ask = <K extends KeyListAnswer["kind"]>(
    request: Request,
    signal?: AbortSignal,
  ): Promise<Extract<KeyListAnswer, { kind: K }>> => {
    signal?.throwIfAborted();
    const id = nextId++;
    const target = started();
    const answer = new Promise<KeyListAnswer>((resolve, reject) =>
      pending.set(id, { worker: target, resolve, reject }),
    );
    target.postMessage({ ...request, id });
    return answer as Promise<Extract<KeyListAnswer, { kind: K }>>;
  };

  return {
    async *pieces(account, filter, signal) {
      let after: number | null = 0;
      let comma = false;
      while (after !== null) {
        const request: Request = {
          kind: "chunk",
          comma,
          accountId: account.id,
          accountKey: account.accountKey,
          filter,
          after,
          maxKeys: PIECE_KEYS,
          maxBytes: PIECE_CHARACTERS,
        };
        const piece: Extract<KeyListAnswer, { kind: "chunk" }> = await ask<"chunk">(request, signal);
        if (piece.count > 0) {
          yield Buffer.from(piece.bytes.buffer, piece.bytes.byteOffset, piece.bytes.byteLength);
          comma = true;
        }
        after = piece.next;
      }
    },
    async page(account, filter, after, limit, signal) {
      const request: Request = {
        kind: "page",
        accountId: account.id,
        accountKey: account.accountKey,
        filter,
        after,
        // One key further tells whether more follow.
        maxKeys: limit + 1,
        maxBytes: Number.POSITIVE_INFINITY,
      };
      const read = await ask<"page">(request, signal);
      const more = read.texts.length > limit;
      const texts = more ? read.texts.slice(0, limit) : read.texts;
      return { texts, lastId: read.ids[texts.length - 1], more };
    },
    async count(accountId, filter, signal) {
      let total = 0;
      let after: number | null = 0;
      while (after !== null) {
        const request: Request = { kind: "count", accountId, filter, after, rows: COUNT_ROWS };
        const step: Extract<KeyListAnswer, { kind: "count" }> = await ask<"count">(request, signal);
        total += step.count;
        after = step.next;
      }
      return total;
    },
    async close() {
      const running = worker;
      worker = undefined;
      failAll(undefined, new Error("the service is stopping"));
      await running?.terminate();
    },
  };
}
