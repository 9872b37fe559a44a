import { fork } from "node:child_process";
import { BenchFailure } from "./timedHttp.ts";

type ListLoopMessage =
  | { kind: "ready" }
  | { kind: "done"; lists: number }
  | { kind: "error"; message: string };

/** A process reading full lists back to back (listLoop.ts). */
export interface ListProcess {
  /** Resolves once the process runs at its lowest priority, as its lists begin. */
  ready: Promise<void>;
  /** Resolves with the number of lists read, once they ran for at least `forMs`. */
  done: Promise<number>;
}

/**
 * Full lists back to back for at least `forMs`, read by a process of their own that runs wholly
 * in the idle class (listLoop.ts).
 */
export function listsInProcess(options: {
  url: string;
  authorization: string;
  forMs: number;
  keys: number;
}): ListProcess {
  const child = fork(new URL("./listLoop.ts", import.meta.url), [JSON.stringify(options)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const done = new Promise<number>((resolve, reject) => {
    child.on("message", (message: ListLoopMessage) => {
      if (message.kind === "ready") markReady();
      else if (message.kind === "error") reject(new BenchFailure(message.message));
      else resolve(message.lists);
    });
    child.once("error", reject);
    child.once("exit", (code, signal) =>
      reject(new BenchFailure(`the list reader exited before it answered (${code ?? signal})`)),
    );
  }).finally(() => child.kill());
  // A reader that failed before it was ready ends the wait for it too (the failure is done's).
  done.then(markReady, markReady);
  return { ready, done };
}
