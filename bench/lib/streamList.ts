import http from "node:http";
import { performance } from "node:perf_hooks";
import { BenchFailure } from "./timedHttp.ts";

/** The service's full key list. */
export const KEYS_PATH = "/settings/1/accounts/_/api-keys";
const PUBLIC_API_KEY_FIELD = Buffer.from('"publicApiKey":"');

export interface StreamedList {
  /** Sending the request to the last byte. */
  ms: number;
  firstByteMs: number;
  bytes: number;
  /** `"publicApiKey":"` occurrences: one per key. */
  keys: number;
}

/** How many times the publicApiKey field occurs in `text`. */
function occurrences(text: Buffer): number {
  let count = 0;
  let at = text.indexOf(PUBLIC_API_KEY_FIELD);
  while (at !== -1) {
    count++;
    at = text.indexOf(PUBLIC_API_KEY_FIELD, at + PUBLIC_API_KEY_FIELD.length);
  }
  return count;
}

/** A full list, read as it streams in: counted, never held in memory. */
export function streamList(agent: http.Agent, baseUrl: string, authorization: string): Promise<StreamedList> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.get(
      {
        host: url.hostname,
        port: url.port,
        path: KEYS_PATH,
        agent,
        headers: { accept: "application/json", authorization },
      },
      (response) => {
        const firstByteMs = performance.now() - started;
        let bytes = 0;
        let keys = 0;
        let tail = Buffer.alloc(0);
        const errorChunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          if (response.statusCode !== 200) {
            errorChunks.push(chunk);
            return;
          }
          // The chunk itself, and the seam with the previous one: the list is counted without
          // copying it, so the client's work is not what the bench measures.
          const overlap = PUBLIC_API_KEY_FIELD.length - 1;
          if (chunk.length < overlap) {
            const text = Buffer.concat([tail, chunk]);
            keys += occurrences(text);
            tail = Buffer.from(text.subarray(Math.max(0, text.length - overlap)));
            return;
          }
          keys += occurrences(Buffer.concat([tail, chunk.subarray(0, overlap)])) + occurrences(chunk);
          tail = Buffer.from(chunk.subarray(chunk.length - overlap));
        });
        response.on("end", () => {
          if (response.statusCode !== 200) {
            reject(
              new BenchFailure(
                `GET ${KEYS_PATH} answered ${response.statusCode}: ${Buffer.concat(errorChunks).toString().slice(0, 300)}`,
              ),
            );
            return;
          }
          resolve({ ms: performance.now() - started, firstByteMs, bytes, keys });
        });
        response.on("error", reject);
        response.on("aborted", () => reject(new BenchFailure(`GET ${KEYS_PATH}: the answer was cut short`)));
      },
    );
    req.on("error", reject);
  });
}
