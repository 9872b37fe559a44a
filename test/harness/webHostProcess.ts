import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { REPO_ROOT } from "./keyServiceProcess.ts";

/** Runs the real browser host, `node electron/web/browserHost.ts` (what `npm run web` runs). */

export const WEB_HOST = join(REPO_ROOT, "electron/web/browserHost.ts");
export const WEB_UI_LINE = /^keydesk web ui at (http:\/\/127\.0\.0\.1:(\d+))\/\?token=([A-Za-z0-9_-]+)$/;

export interface WebHostProcess {
  /** http://127.0.0.1:PORT */
  baseUrl: string;
  /** The whole printed address, with ?token=. */
  pageUrl: string;
  port: number;
  token: string;
  child: ChildProcess;
  stdoutLines: string[];
  stderr(): string;
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startWebHost(options: {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  args?: string[];
}): Promise<WebHostProcess> {
  const args = [WEB_HOST, "--port", "0", "--data-dir", options.dataDir, ...(options.args ?? [])];
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith("KEY_SERVICE_") && !name.startsWith("KEYDESK_"),
    ),
  );
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...env, ...options.env },
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
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the web host did not start within 30 s; stderr: ${stderr}`));
    }, 30_000);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(
        new Error(`the web host exited before listening (code ${code}, signal ${signal}); stderr: ${stderr}`),
      );
    });
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      stdoutLines.push(line);
      const match = WEB_UI_LINE.exec(line);
      if (match && stdoutLines.length === 1) {
        clearTimeout(timer);
        resolveStart({
          baseUrl: match[1] as string,
          pageUrl: line.slice("keydesk web ui at ".length),
          port: Number(match[2]),
          token: match[3] as string,
          child,
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
