import { fork } from "node:child_process";
import { BenchFailure } from "./timedHttp.ts";

/**
 * Full lists back to back for at least `forMs`, read by a process of their own that runs wholly
 * in the idle class (listLoop.ts); resolves with their number.
 */
export function listsInProcess(options: {
  url: string;
  authorization: string;
  forMs: number;
  keys: number;
}): Promise<number> {
  const child = fork(new URL("./listLoop.ts", import.meta.url), [JSON.stringify(options)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise<number>((resolve, reject) => {
    child.once("message", (message: { lists?: number; error?: string }) => {
      if (message.error !== undefined) reject(new BenchFailure(message.error));
      else resolve(message.lists ?? 0);
    });
    child.once("error", reject);
    child.once("exit", (code, signal) =>
      reject(new BenchFailure(`the list reader exited before it answered (${code ?? signal})`)),
    );
  }).finally(() => child.kill());
}
