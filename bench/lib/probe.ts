import { startBenchProcess } from "./benchProcess.ts";

/** Sequential App-authorized calls in a process of their own (probeLoop.ts); their times in ms. */
export interface Probe {
  /** Resolves once the probe's untimed warm-up calls are done: the calls from then on are timed. */
  ready: Promise<void>;
  /** Asks the probe to stop after its current call; resolves with every call's time. */
  stop(): Promise<number[]>;
  /** Resolves with the times once the probe ends by itself (after `calls` calls). */
  done: Promise<number[]>;
}

export function startProbe(options: {
  url: string;
  authorization: string;
  gapMs: number;
  calls?: number;
}): Probe {
  const { child, ready, answer } = startBenchProcess<{ times: number[] }>("./probeLoop.ts", options, [
    "--single-threaded-gc",
  ]);
  const done = answer.then((message) => message.times);
  return {
    ready,
    done,
    // A stop sent before the probe listens for it would be lost (it listens before it is ready).
    stop: () =>
      ready.then(() => {
        if (child.connected) child.send("stop");
        return done;
      }),
  };
}
