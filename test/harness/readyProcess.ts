import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

/**
 * A long-running command of the project (serve, the browser host) started the way a user
 * starts it, and ready once the first stdout line matches its documented "ready" line.
 */

export interface ReadyProcess {
  child: ChildProcess;
  /** The ready line, matched. */
  match: RegExpExecArray;
  /** Every line the process printed on stdout so far. */
  stdoutLines: string[];
  stderr(): string;
  /** Sends a signal (if still running) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnUntilReady(options: {
  /** Named in errors. */
  name: string;
  /** The program; Node (process.execPath) unless told otherwise, e.g. a wrapper that runs Node. */
  command?: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  ready: RegExp;
  timeoutMs: number;
}): Promise<ReadyProcess> {
  const child = spawn(options.command ?? process.execPath, options.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stdoutLines: string[] = [];
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) =>
    child.on("exit", (code, signal) => resolveExit({ code, signal })),
  );
  return new Promise((resolveReady, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(`${options.name} was not ready within ${options.timeoutMs / 1000} s; stderr: ${stderr}`),
      );
    }, options.timeoutMs);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(
        new Error(
          `${options.name} exited before it was ready (code ${code}, signal ${signal}); stderr: ${stderr}`,
        ),
      );
    });
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      stdoutLines.push(line);
      const match = options.ready.exec(line);
      if (match && stdoutLines.length === 1) {
        clearTimeout(timer);
        resolveReady({
          child,
          match,
          stdoutLines,
          stderr: () => stderr,
          stop: (signal = "SIGTERM") => {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    });
  });
}
