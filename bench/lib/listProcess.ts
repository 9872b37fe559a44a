import { startBenchProcess } from "./benchProcess.ts";

/** A process reading full lists back to back (listLoop.ts). */
export interface ListProcess {
  /** Resolves once the process runs at its lowest priority, as its lists begin. */
  ready: Promise<void>;
  /** Resolves with the number of lists read, once they ran for at least `forMs`. */
  done: Promise<number>;
}

/**
 * Full lists back to back for at least `forMs`, read by a process of their own that runs wholly
 * in the idle class (listLoop.ts). Its collections run in its own thread (--single-threaded-gc):
 * V8's helper threads, idle class or not, held a core a woken thread of the service or the probe
 * then waited for (traced: 3-4 ms).
 */
export function listsInProcess(options: {
  url: string;
  authorization: string;
  forMs: number;
  keys: number;
}): ListProcess {
  const { ready, answer } = startBenchProcess<{ lists: number }>("./listLoop.ts", options, [
    "--single-threaded-gc",
  ]);
  return { ready, done: answer.then((message) => message.lists) };
}
