import { type ChildProcess, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, readFileSync } from "node:fs";
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

/** Why the host cannot be run with a real OS keychain here, or undefined when it can. */
export const keyringSessionMissing =
  process.platform === "linux" &&
  spawnSync("sh", ["-c", "command -v dbus-run-session && command -v gnome-keyring-daemon"], {
    stdio: "ignore",
  }).status === 0
    ? undefined
    : "no private Secret Service here (Linux with dbus-run-session and gnome-keyring-daemon: apt-get install gnome-keyring dbus dbus-x11)";

/**
 * The environment of a private D-Bus session whose gnome-keyring keeps its files under `home`:
 * nothing reaches the user's own session bus or keyring.
 */
function keyringSessionEnv(env: NodeJS.ProcessEnv, home: string): NodeJS.ProcessEnv {
  const isolated = { ...env };
  for (const name of ["DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "GNOME_KEYRING_CONTROL"]) {
    delete isolated[name];
  }
  const runtime = join(home, "run");
  mkdirSync(runtime, { recursive: true, mode: 0o700 });
  return {
    ...isolated,
    HOME: home,
    XDG_RUNTIME_DIR: runtime,
    XDG_DATA_HOME: join(home, "data"),
    XDG_CONFIG_HOME: join(home, "config"),
  };
}

/**
 * Stops a host that runs inside dbus-run-session: the signal goes to the host itself (signalling
 * dbus-run-session would orphan it), and dbus-run-session then ends the bus and exits with the
 * host's exit code.
 */
async function stopInKeyringSession(
  session: ChildProcess,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (session.exitCode === null && session.signalCode === null) {
    const children = readFileSync(`/proc/${session.pid}/task/${session.pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
    const hostPid = children.find((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(WEB_HOST);
      } catch {
        return false;
      }
    });
    if (hostPid === undefined) session.kill(signal);
    else process.kill(hostPid, signal);
    await once(session, "exit");
  }
  return { code: session.exitCode, signal: session.signalCode };
}

export async function startWebHost(options: {
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  args?: string[];
  /**
   * Runs the host with a real OS keychain: inside a private D-Bus session (dbus-run-session) with
   * a gnome-keyring unlocked first, whose files live under this folder. See keyringSessionMissing.
   */
  keyringHome?: string;
}): Promise<WebHostProcess> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith("KEY_SERVICE_") && !name.startsWith("KEYDESK_"),
    ),
  );
  const hostArgs = [WEB_HOST, "--port", "0", "--data-dir", options.dataDir, ...(options.args ?? [])];
  const inKeyring = options.keyringHome !== undefined;
  const ready = await spawnUntilReady({
    name: "the web host",
    ...(inKeyring
      ? {
          command: "dbus-run-session",
          args: [
            "--",
            "sh",
            "-c",
            'printf %s pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec "$0" "$@"',
            process.execPath,
            ...hostArgs,
          ],
        }
      : { args: hostArgs }),
    cwd: REPO_ROOT,
    env: {
      ...(options.keyringHome !== undefined ? keyringSessionEnv(env, options.keyringHome) : env),
      ...options.env,
    },
    ready: WEB_UI_LINE,
    timeoutMs: 30_000,
  });
  const { child, match, stdoutLines, stderr } = ready;
  const stop = inKeyring
    ? (signal: NodeJS.Signals = "SIGTERM") => stopInKeyringSession(child, signal)
    : ready.stop;
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
    headers: { "content-type": "application/json", "keydesk-token": host.token },
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
