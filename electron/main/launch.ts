// `npm start`, after the build: launches Electron on the built app (out/main/index.js).
// Runs on plain Node: it must not import the `electron` runtime API. Requiring the `electron`
// package would even try to download the binary when it is missing, so its path is resolved here
// the way the package does it (path.txt, ELECTRON_OVERRIDE_DIST_PATH), without any download.

import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { constants as osConstants } from "node:os";
import { dirname, join, resolve } from "node:path";

const NO_ELECTRON_MESSAGE =
  'keydesk: no Electron binary is available on this machine; run the UI in a browser with "npm run web" instead';

const projectRoot = resolve(import.meta.dirname, "..", "..");

/** Path of the Electron executable installed by the `electron` package, or null when there is none. */
export function electronBinaryPath(): string | null {
  let packageDir: string;
  try {
    packageDir = dirname(createRequire(import.meta.url).resolve("electron/package.json"));
  } catch {
    return null;
  }
  const pathFile = join(packageDir, "path.txt");
  const executable = existsSync(pathFile) ? readFileSync(pathFile, "utf8").trim() : "";
  const overrideDir = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  let candidate: string | null = null;
  if (overrideDir) {
    candidate = join(overrideDir, executable || "electron");
  } else if (executable) {
    candidate = join(packageDir, "dist", executable);
  }
  return candidate !== null && existsSync(candidate) ? candidate : null;
}

function fail(message: string): void {
  process.stderr.write(`${message}\n`);
  process.exitCode = 1;
}

function launch(): void {
  const binary = electronBinaryPath();
  if (binary === null) {
    fail(NO_ELECTRON_MESSAGE);
    return;
  }
  if (!existsSync(join(projectRoot, "out", "main", "index.js"))) {
    fail('keydesk: the app is not built (out/main/index.js is missing); run "npm run build" first');
    return;
  }
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE; // would make Electron behave as plain Node
  const child = spawn(binary, [projectRoot], { stdio: "inherit", env });
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  child.on("error", (error) => fail(`keydesk: could not start Electron (${error.message})`));
  child.on("exit", (code, signal) => {
    process.off("SIGINT", forward);
    process.off("SIGTERM", forward);
    // Like a shell: 128 + signal number when Electron was killed by a signal.
    process.exitCode = code ?? (signal === null ? 1 : 128 + osConstants.signals[signal]);
  });
}

if (import.meta.main) {
  launch();
}
