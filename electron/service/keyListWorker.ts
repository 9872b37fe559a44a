// The key list's worker thread: reads, decrypts and serializes keys on a read-only connection of
// its own, so that a list of a million keys costs the service's event loop (and its garbage
// collector) only the copying of finished text to the socket. Each request is one bounded piece
// of work and carries its position: the worker keeps no state between requests.

import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { createSecretBox } from "./crypto/secretBox.ts";
import { apiKeyJson } from "./domain/apiKeyRecords.ts";
import type {
  KeyListAnswer,
  KeyListRecycle,
  KeyListRequest,
  KeyListWorkerInit,
  KeyListWorkerReady,
} from "./keyListProtocol.ts";
import { ApiKeyStore } from "./store/apiKeyStore.ts";
import {
  idleThisThread,
  niceThisThread,
  preciseSleepsThisThread,
  yieldThisThread,
} from "./threadPriority.ts";

/**
 * Keys per scan step of a piece or a page: ~0.9 ms here, with a yield between steps (yieldIfDue).
 * Steps of 1,024 keys made the probe's p99 during lists of 1,000 keys 2.1–2.7× idle, against
 * 1.3–1.7× now; a page of 1,000 keys takes ~0.5 ms longer (5.5 -> 6 ms).
 */
const STEP_KEYS = 256;
/** Rows looked at per step when a filter matches little. */
const STEP_ROWS = 16_384;
/**
 * Rows per scan step of a window: ~0.9 ms of reading, decrypting and serializing here, which
 * bounds how long a thread woken onto this worker's core waits for it (yieldIfDue). With steps of
 * 1,024 rows (~3.3 ms) and no yields, App-authorized calls made during lists of a million keys
 * had 3× their idle p99.
 */
const WINDOW_STEP_ROWS = 256;
/** Work between two yields of the core, at most (ms). */
const YIELD_EVERY_MS = 0.5;

const init = workerData as KeyListWorkerInit;

/**
 * Requests come first: when both want the CPU, the service's thread runs and the list waits. A
 * background worker (the pieces of full lists) runs in the idle class (threadPriority.ts), and
 * every worker gives its core up between steps (yieldIfDue), so a request waking the service's
 * thread gets a core within a step. Other workers, and a background one the idle class is not to
 * be had for, run at nice 10.
 */
function lowerPriority(background: boolean): boolean {
  if (background && idleThisThread()) return true;
  niceThisThread(10);
  return false;
}

const ready: KeyListWorkerReady = { kind: "ready", idle: lowerPriority(init.background) };
preciseSleepsThisThread();
parentPort?.postMessage(ready);

let lastYield = performance.now();
/** Yields the core between steps once YIELD_EVERY_MS of work went by (threadPriority.ts says why). */
function yieldIfDue(): void {
  if (performance.now() - lastYield < YIELD_EVERY_MS) return;
  yieldThisThread();
  lastYield = performance.now();
}

const db = new Database(init.databaseFile, { readonly: true, fileMustExist: true });
db.pragma("busy_timeout = 5000");
// SQLite's own default page cache (2 MB) instead of better-sqlite3's 16 MB: a list reads each
// page once and the OS keeps the file cached; 16 MB per worker was ~40 MB more memory for three.
db.pragma("cache_size = -2000");
const store = new ApiKeyStore(db, createSecretBox(Buffer.from(init.dataKey)));

function answer(request: KeyListRequest): KeyListAnswer {
  if (request.kind === "count") {
    const step = store.countStep(request.accountId, request.filter, request.after, request.rows);
    return { id: request.id, kind: "count", count: step.count, next: step.after };
  }
  if (request.kind === "bounds") {
    const ends: number[] = [];
    let after = request.after;
    while (ends.length < request.count) {
      const end = store.windowEnd(request.accountId, after, request.rows);
      if (end === null) return { id: request.id, kind: "bounds", ends, last: true };
      ends.push(end);
      after = end;
      yieldIfDue();
    }
    return { id: request.id, kind: "bounds", ends, last: false };
  }
  if (request.kind === "window") {
    // Each step's text is written into the window's bytes as it is made: a million keys' text is
    // never concatenated and then encoded whole (half the cost of a key's serialization), and a
    // step's 256 keys cost one write instead of 256.
    const out = new WindowBytes();
    let count = 0;
    let after: number | null = request.after;
    while (after !== null && after < request.upTo) {
      const step = store.scan(
        request.accountId,
        request.filter,
        after,
        WINDOW_STEP_ROWS,
        WINDOW_STEP_ROWS,
        request.extras,
      );
      let text = "";
      for (const key of step.keys) {
        if (key.id > request.upTo) break;
        text += `,${apiKeyJson(request.accountKey, key)}`;
        count++;
      }
      out.write(text);
      after = step.after;
      yieldIfDue();
    }
    return { id: request.id, kind: "window", bytes: out.bytes(), count };
  }
  const texts: string[] = [];
  const ids: number[] = [];
  let after: number | null = request.after;
  let bytes = 0;
  while (after !== null && texts.length < request.maxKeys && bytes < request.maxBytes) {
    const step = store.scan(
      request.accountId,
      request.filter,
      after,
      Math.min(STEP_KEYS, request.maxKeys - texts.length),
      STEP_ROWS,
      request.extras,
    );
    for (const key of step.keys) {
      const text = apiKeyJson(request.accountKey, key);
      texts.push(text);
      ids.push(key.id);
      bytes += text.length;
    }
    after = step.after;
    yieldIfDue();
  }
  if (request.kind === "page") return { id: request.id, kind: "page", texts, ids, next: after };
  const text = texts.length === 0 ? "" : (request.comma ? "," : "") + texts.join(",");
  return { id: request.id, kind: "chunk", bytes: encoded(text), count: texts.length, next: after };
}

const encoder = new TextEncoder();

/** Buffers the service handed back, at most a few: a window's text goes into one that fits. */
const recycled: ArrayBuffer[] = [];
const MAX_RECYCLED = 4;
/** New buffers are made this large at least, so that most windows fit in a recycled one. */
const MIN_BUFFER_BYTES = 512 * 1024;

/** A buffer handed back by the service that holds `bytes`, or a new one at least that large. */
function bufferOf(bytes: number): ArrayBuffer {
  const index = recycled.findIndex((buffer) => buffer.byteLength >= bytes);
  return index === -1
    ? new ArrayBuffer(Math.max(MIN_BUFFER_BYTES, bytes))
    : (recycled.splice(index, 1)[0] as ArrayBuffer);
}

/** UTF-8 text written piece by piece into one buffer, which grows (by copying) when a piece does not fit. */
class WindowBytes {
  #buffer = Buffer.from(bufferOf(MIN_BUFFER_BYTES));
  #length = 0;

  write(text: string): void {
    // UTF-8 takes at most three bytes per UTF-16 unit.
    const worst = text.length * 3;
    if (this.#length + worst > this.#buffer.length) {
      const larger = Buffer.from(bufferOf(Math.max(2 * this.#buffer.length, this.#length + worst)));
      this.#buffer.copy(larger, 0, 0, this.#length);
      if (recycled.length < MAX_RECYCLED) recycled.push(this.#buffer.buffer as ArrayBuffer);
      this.#buffer = larger;
    }
    this.#length += this.#buffer.write(text, this.#length, "utf8");
  }

  bytes(): Uint8Array {
    return new Uint8Array(this.#buffer.buffer, this.#buffer.byteOffset, this.#length);
  }
}

function encoded(text: string): Uint8Array {
  if (text.length === 0) return new Uint8Array(0);
  // UTF-8 takes at most three bytes per UTF-16 unit.
  const buffer = bufferOf(text.length * 3);
  const { written } = encoder.encodeInto(text, new Uint8Array(buffer));
  return new Uint8Array(buffer, 0, written);
}

parentPort?.on("message", (request: KeyListRequest | KeyListRecycle) => {
  if (request.kind === "recycle") {
    if (recycled.length < MAX_RECYCLED) recycled.push(request.buffer);
    return;
  }
  try {
    const reply = answer(request);
    // A piece's bytes move to the service's thread without a copy.
    const bytes = reply.kind === "chunk" || reply.kind === "window" ? reply.bytes : undefined;
    parentPort?.postMessage(reply, bytes ? [bytes.buffer as ArrayBuffer] : []);
  } catch (error) {
    // The code (SQLITE_CORRUPT, SQLITE_FULL, ...) lets the service answer the failure in words.
    const { message, code } = error as Error & { code?: unknown };
    parentPort?.postMessage({
      id: request.id,
      kind: "error",
      message,
      code: typeof code === "string" ? code : undefined,
    });
  }
});
