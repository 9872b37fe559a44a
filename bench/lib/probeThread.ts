import { Worker } from "node:worker_threads";
import { BenchFailure } from "./timedHttp.ts";

/** Sequential App-authorized calls in a thread of their own (probeLoop.ts); their times in ms. */
export interface ProbeThread {
  /** Asks the thread to stop after its current call; resolves with every call's time. */
  stop(): Promise<number[]>;
  /** Resolves with the times once the thread ends by itself (after `calls` calls). */
  done: Promise<number[]>;
}

export function startProbeThread(options: {
  url: string;
  authorization: string;
  gapMs: number;
  calls?: number;
}): ProbeThread {
  const worker = new Worker(new URL("./probeLoop.ts", import.meta.url), { workerData: options });
  const done = new Promise<number[]>((resolve, reject) => {
    worker.once("message", (message: { times?: number[]; error?: string }) => {
      if (message.error !== undefined) reject(new BenchFailure(message.error));
      else resolve(message.times ?? []);
    });
    worker.once("error", reject);
  }).finally(() => worker.terminate());
  return {
    done,
    stop: () => {
      worker.postMessage("stop");
      return done;
    },
  };
}
