import { type ChildProcess, fork } from "node:child_process";
import { BenchFailure } from "./timedHttp.ts";

/** What a bench loop (listLoop.ts, probeLoop.ts) tells the bench, in this order. */
type BenchLoopMessage<T> = { kind: "ready" } | ({ kind: "done" } & T) | { kind: "error"; message: string };

export interface BenchProcess<T> {
  child: ChildProcess;
  /** Resolves once the loop says it is ready (or once it answered or failed). */
  ready: Promise<void>;
  /** The loop's answer; a BenchFailure if it reported an error or exited first. The process is ended then. */
  answer: Promise<T>;
}

/**
 * Starts one of the bench's loops in a process of its own, its settings as JSON in argv[2]: not a
 * thread of the bench, because V8's helper threads (which run garbage collections) are shared by a
 * process's threads, and the bench's collections in them took the cores from the service and the
 * probe at the moments being measured.
 */
export function startBenchProcess<T extends object>(
  module: string,
  init: object,
  v8Flags: readonly string[] = [],
): BenchProcess<T> {
  const child = fork(new URL(module, import.meta.url), [JSON.stringify(init)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    execArgv: [...process.execArgv, ...v8Flags],
  });
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const answer = new Promise<T>((resolve, reject) => {
    child.on("message", (message: BenchLoopMessage<T>) => {
      if (message.kind === "ready") markReady();
      else if (message.kind === "error") reject(new BenchFailure(message.message));
      else resolve(message);
    });
    child.once("error", reject);
    child.once("exit", (code, signal) =>
      reject(new BenchFailure(`${module} exited before it answered (${code ?? signal})`)),
    );
  }).finally(() => child.kill());
  // A loop that failed before it was ready ends the wait for it too (the failure is answer's).
  answer.then(markReady, markReady);
  return { child, ready, answer };
}
