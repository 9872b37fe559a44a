import { Worker } from "node:worker_threads";
import { BenchFailure } from "./timedHttp.ts";

/** Full lists back to back for at least `forMs`, read at the lowest priority (listLoop.ts); resolves with their number. */
export function listsInThread(options: {
  url: string;
  authorization: string;
  forMs: number;
  keys: number;
}): Promise<number> {
  const worker = new Worker(new URL("./listLoop.ts", import.meta.url), { workerData: options });
  return new Promise<number>((resolve, reject) => {
    worker.once("message", (message: { lists?: number; error?: string }) => {
      if (message.error !== undefined) reject(new BenchFailure(message.error));
      else resolve(message.lists ?? 0);
    });
    worker.once("error", reject);
  }).finally(() => worker.terminate());
}
