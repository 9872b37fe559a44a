import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "./keyServiceProcess.ts";
import { spawnUntilReady } from "./readyProcess.ts";

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

export async function startWebHost(options: {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  args?: string[];
}): Promise<WebHostProcess> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith("KEY_SERVICE_") && !name.startsWith("KEYDESK_"),
    ),
  );
  const ready = await spawnUntilReady({
    name: "the web host",
    args: [WEB_HOST, "--port", "0", "--data-dir", options.dataDir, ...(options.args ?? [])],
    cwd: REPO_ROOT,
    env: { ...env, ...options.env },
    ready: WEB_UI_LINE,
    timeoutMs: 30_000,
  });
  const { child, match, stdoutLines, stderr, stop } = ready;
  return {
    baseUrl: match[1] as string,
    pageUrl: (stdoutLines[0] as string).slice("keydesk web ui at ".length),
    port: Number(match[2]),
    token: match[3] as string,
    child,
    stdoutLines,
    stderr,
    stop,
  };
}

export type BridgeAnswer<T> =
  | { ok: true; value: T }
  | { ok: false; error: { messageId: string; text: string; validationErrors?: Record<string, string[]> } };

/** One bridge call to the browser host, as the page makes it; the answer as it comes. */
export async function bridgeAnswer<T>(
  host: WebHostProcess,
  method: string,
  args?: unknown,
): Promise<BridgeAnswer<T>> {
  const res = await fetch(`${host.baseUrl}/bridge/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-keydesk-token": host.token },
    ...(args !== undefined && { body: JSON.stringify(args) }),
  });
  return (await res.json()) as BridgeAnswer<T>;
}

/** One bridge call that must succeed: its value, or an error naming the bridge's messageId and text. */
export async function callBridge<T>(host: WebHostProcess, method: string, args?: unknown): Promise<T> {
  const answer = await bridgeAnswer<T>(host, method, args);
  if (!answer.ok) throw new Error(`bridge ${method}: ${answer.error.messageId} ${answer.error.text}`);
  return answer.value;
}
