// `npm run -s web -- [--port N] [--data-dir DIR]`: the Keydesk UI in a browser, for tests and for
// machines without a display. Serves the built renderer (run "npm run build" first) and the same
// core as the desktop app behind the same bridge contract, on 127.0.0.1 only, guarded by a random
// session token. Prints exactly one stdout line: keydesk web ui at http://127.0.0.1:PORT/?token=TOKEN

import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { UsageError } from "../cli/cliArgs.ts";
import { explainListenError, stopOnSignals } from "../cli/processLifecycle.ts";
import { startKeydeskCore } from "../main/core.ts";
import { type KeydeskCore, PAGE_CLIPBOARD } from "../main/corePorts.ts";
import { openCredentialVault } from "../vault/openCredentialVault.ts";
import { startBrowserHost } from "./httpHost.ts";

const projectRoot = resolve(import.meta.dirname, "..", "..");

/** Electron's `app.getPath("userData")` for this app, so that both hosts share one data folder. */
export function defaultUserDataDir(env: NodeJS.ProcessEnv = process.env): string {
  // The same folder as Electron's app.getPath("userData"): appData + package.json productName.
  const appName = "Keydesk";
  if (process.platform === "win32") {
    return join(env.APPDATA || join(homedir(), "AppData", "Roaming"), appName);
  }
  if (process.platform === "darwin") {
    return join(homedir(), "Library", "Application Support", appName);
  }
  return join(env.XDG_CONFIG_HOME || join(homedir(), ".config"), appName);
}

export interface WebOptions {
  port: number;
  dataDir: string;
}

export const WEB_USAGE = "usage: npm run -s web -- [--port N] [--data-dir DIR]";

/** The host's options, or "help" for `--help` / `-h` (which asks for the usage, not a host). */
export function parseWebArgs(args: string[], env: NodeJS.ProcessEnv): WebOptions | "help" {
  let values: { port?: string; "data-dir"?: string; help?: boolean };
  try {
    values = parseArgs({
      args,
      options: {
        port: { type: "string" },
        "data-dir": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return "help";
  const portText = values.port ?? "0";
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) {
    throw new UsageError(`--port must be a number from 0 to 65535 (0 picks a free port), not "${portText}"`);
  }
  const dataDir = values["data-dir"] ?? env.KEYDESK_DATA_DIR ?? defaultUserDataDir(env);
  if (dataDir.trim() === "") {
    throw new UsageError("--data-dir must not be empty");
  }
  return { port: Number(portText), dataDir };
}

async function main(): Promise<void> {
  let options: WebOptions | "help";
  try {
    options = parseWebArgs(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`keydesk web: ${error.message}\n${WEB_USAGE}\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
  if (options === "help") {
    process.stdout.write(
      `${WEB_USAGE}\n  --port N        the host's port on 127.0.0.1 (default 0: a free one)\n` +
        "  --data-dir DIR  the app's data folder (default KEYDESK_DATA_DIR, else the app's user-data folder)\n",
    );
    return;
  }
  const rendererDir = join(projectRoot, "out", "renderer");
  if (!existsSync(join(rendererDir, "index.html"))) {
    process.stderr.write(
      `keydesk web: the renderer is not built (${join(rendererDir, "index.html")} is missing); run "npm run build" first\n`,
    );
    process.exitCode = 1;
    return;
  }
  const vault = await openCredentialVault(
    process.env.KEYDESK_VAULT_SERVICE ? { service: process.env.KEYDESK_VAULT_SERVICE } : {},
  );
  if (vault.kind === "session-only") {
    process.stderr.write(
      `keydesk web: no OS keychain, so remote profiles' passwords are kept for this session only: ${vault.unavailableReason ?? "unknown reason"}\n`,
    );
  }
  const core: KeydeskCore = await startKeydeskCore({
    dataDir: options.dataDir,
    vault,
    // The page writes the clipboard of the user's browser: a copy answers it the value.
    clipboard: PAGE_CLIPBOARD,
  });
  let host: Awaited<ReturnType<typeof startBrowserHost>>;
  try {
    host = await startBrowserHost({ core, rendererDir, port: options.port });
  } catch (error) {
    await core.close();
    throw new Error(explainListenError(error as NodeJS.ErrnoException, "127.0.0.1", options.port));
  }
  stopOnSignals("keydesk web", () => host.close().then(() => core.close()));
  // Printed last: whoever waits for this line may use the host (or signal it) as soon as it reads it.
  process.stdout.write(`keydesk web ui at ${host.url}\n`);
}

if (import.meta.main) {
  main().catch((error: unknown) => {
    process.stderr.write(`keydesk web: ${(error as Error).message ?? String(error)}\n`);
    process.exitCode = 1;
  });
}
