import { Worker } from "node:worker_threads";
import { BenchFailure } from "./timedHttp.ts";

/**
 * Starts one of the bench's loops (listLoop.ts, probeLoop.ts) in a thread of its own; `answer`
 * resolves with the one message it posts when done (a BenchFailure if that names an error), and
 * the thread is ended then.
 */
export function startBenchThread<T extends object>(
  module: string,
  workerData: object,
): { worker: Worker; answer: Promise<T> } {
  const worker = new Worker(new URL(module, import.meta.url), { workerData });
  const answer = new Promise<T>((resolve, reject) => {
    worker.once("message", (message: T & { error?: string }) => {
      if (message.error !== undefined) reject(new BenchFailure(message.error));
      else resolve(message);
    });
    worker.once("error", reject);
  }).finally(() => worker.terminate());
  return { worker, answer };
}
