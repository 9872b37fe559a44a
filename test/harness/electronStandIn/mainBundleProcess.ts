import { type ChildProcess, fork } from "node:child_process";
import { BUILT } from "../builtApp.ts";
import { eventually } from "../eventually.ts";
import { REPO_ROOT } from "../keyServiceProcess.ts";
import {
  type ControlReply,
  type ControlRequest,
  type InvokeOutcome,
  type QuitNotice,
  type SenderFrame,
  STAND_IN_ENV,
  type StandInSnapshot,
} from "./protocol.ts";

/**
 * The built main bundle (out/main/index.js) running in a child Node 24 process whose `electron`
 * is the stand-in (mainProcess/), driven over the control channel (protocol.ts).
 */
export interface MainBundle {
  request(request: Exclude<ControlRequest, { op: "exit" }>): Promise<unknown>;
  snapshot(): Promise<StandInSnapshot>;
  /** `ipcRenderer.invoke(channel, ...args)` from a frame of the app's window. */
  invoke(channel: string, args: unknown[], frame?: SenderFrame): Promise<InvokeOutcome>;
  /**
   * Resolves when the app has quit (the moment Electron would end the process); fails when that
   * does not happen within `timeoutMs`.
   */
  quitted(timeoutMs?: number): Promise<QuitNotice>;
  /** After the quit: lets the process end, and resolves with how it ended. */
  exit(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout(): string;
  stderr(): string;
  /** Kills the process if it still runs (for `after`). */
  kill(): void;
}

const REGISTER = new URL("./mainProcess/register.ts", import.meta.url).href;

export function startMainBundle(options: {
  /** KEYDESK_DATA_DIR of the app. */
  dataDir: string;
  /** Where app.getPath() points (a temp folder: never the user's real folders). */
  home: string;
  env?: NodeJS.ProcessEnv;
}): MainBundle {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        !name.startsWith("KEY_SERVICE_") &&
        !name.startsWith("KEYDESK_") &&
        // The dev server's URL would replace the built page; RUN_AS_NODE is not the app's.
        name !== "ELECTRON_RENDERER_URL" &&
        name !== "ELECTRON_RUN_AS_NODE",
    ),
  );
  const child = fork(BUILT.main, [], {
    cwd: REPO_ROOT,
    execArgv: ["--import", REGISTER],
    env: {
      ...inherited,
      KEYDESK_DATA_DIR: options.dataDir,
      [STAND_IN_ENV.home]: options.home,
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    // Structured clone, as Electron's IPC: what crosses must be cloneable there too.
    serialization: "advanced",
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) =>
    child.on("exit", (code, signal) => resolveExit({ code, signal })),
  );
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  let resolveQuit: (notice: QuitNotice) => void = () => {};
  const quit = new Promise<QuitNotice>((resolveNotice) => {
    resolveQuit = resolveNotice;
  });
  child.on("message", (message: ControlReply | QuitNotice) => {
    if ("type" in message) {
      resolveQuit(message);
      return;
    }
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (message.ok) waiting?.resolve(message.value);
    else waiting?.reject(new Error(message.error));
  });
  void exited.then(({ code, signal }) => {
    for (const waiting of pending.values()) {
      waiting.reject(
        new Error(
          `the main bundle exited (code ${code}, signal ${signal}) before it answered; stderr:\n${stderr}`,
        ),
      );
    }
    pending.clear();
  });

  const request = (body: Exclude<ControlRequest, { op: "exit" }>): Promise<unknown> =>
    new Promise((resolveReply, reject) => {
      if (!child.connected) {
        reject(new Error(`the main bundle is not running; stderr:\n${stderr}`));
        return;
      }
      const id = nextId++;
      pending.set(id, { resolve: resolveReply, reject });
      child.send({ id, request: body });
    });

  return {
    request,
    snapshot: () => request({ op: "snapshot" }) as Promise<StandInSnapshot>,
    invoke: (channel, args, frame = "main") =>
      request({ op: "invoke", channel, args, frame }) as Promise<InvokeOutcome>,
    quitted: (timeoutMs = 20_000) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the app did not quit within ${timeoutMs / 1000} s; stderr:\n${stderr}`)),
          timeoutMs,
        );
      });
      return Promise.race([quit, late]).finally(() => clearTimeout(timer));
    },
    exit() {
      if (child.connected) child.send({ id: nextId++, request: { op: "exit" } });
      return exited;
    },
    stdout: () => stdout,
    stderr: () => stderr,
    kill() {
      killIfRunning(child);
    },
  };
}

function killIfRunning(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}

/** Waits until the app opened its window (it starts the core and the bridge first). */
export function windowOpened(bundle: MainBundle): Promise<StandInSnapshot> {
  return eventually("the app's window", async () => {
    const state = await bundle.snapshot();
    return state.windows.length > 0 ? state : undefined;
  });
}
