// The key list's worker thread: reads, decrypts and serializes keys on a read-only connection of
// its own, so that a list of a million keys costs the service's event loop (and its garbage
// collector) only the copying of finished text to the socket. Each request is one bounded piece
// of work and carries its position: the worker keeps no state between requests.

import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { createSecretBox } from "./crypto/secretBox.ts";
import { apiKeyJson } from "./domain/apiKeyRules.ts";
import type { KeyListAnswer, KeyListRequest, KeyListWorkerInit } from "./keyListProtocol.ts";
import { ApiKeyStore } from "./store/apiKeyStore.ts";

/** Keys per scan step inside the worker (no one waits on the worker between steps). */
const STEP_KEYS = 1024;
/** Rows looked at per step when a filter matches little. */
const STEP_ROWS = 16_384;

// Requests come first: when both want the CPU, the service's thread runs and the list waits. On
// Linux a priority set with pid 0 is this thread's alone; elsewhere it would be the whole
// process's, so it is left as it is there.
if (process.platform === "linux") {
  try {
    setPriority(10);
  } catch {
    // Not allowed (a sandbox): the list runs at the service's priority.
  }
}

const init = workerData as KeyListWorkerInit;
const db = new Database(init.databaseFile, { readonly: true, fileMustExist: true });
db.pragma("busy_timeout = 5000");
const store = new ApiKeyStore(db, createSecretBox(Buffer.from(init.dataKey)));

function answer(request: KeyListRequest): KeyListAnswer {
  if (request.kind === "count") {
    const step = store.countStep(request.accountId, request.filter, request.after, request.rows);
    return { id: request.id, kind: "count", count: step.count, next: step.after };
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
    );
    for (const key of step.keys) {
      const text = apiKeyJson(request.accountKey, key);
      texts.push(text);
      ids.push(key.id);
      bytes += text.length;
    }
    after = step.after;
  }
  if (request.kind === "page") return { id: request.id, kind: "page", texts, ids, next: after };
  const text = texts.length === 0 ? "" : (request.comma ? "," : "") + texts.join(",");
  return { id: request.id, kind: "chunk", bytes: encoder.encode(text), count: texts.length, next: after };
}

const encoder = new TextEncoder();

parentPort?.on("message", (request: KeyListRequest) => {
  try {
    const reply = answer(request);
    // A piece's bytes move to the service's thread without a copy.
    parentPort?.postMessage(reply, reply.kind === "chunk" ? [reply.bytes.buffer as ArrayBuffer] : []);
  } catch (error) {
    parentPort?.postMessage({ id: request.id, kind: "error", message: (error as Error).message });
  }
});
