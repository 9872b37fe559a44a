import { startBenchThread } from "./benchThread.ts";

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
  const { worker, answer } = startBenchThread<{ times?: number[] }>("./probeLoop.ts", options);
  const done = answer.then((message) => message.times ?? []);
  return {
    done,
    stop: () => {
      worker.postMessage("stop");
      return done;
    },
  };
}
