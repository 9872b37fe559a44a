import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { electronBinaryPath } from "../../electron/main/launch.ts";
import { makeTempDir, REPO_ROOT, removeDir } from "../harness/keyServiceProcess.ts";

// The desktop app for real: Playwright launches Electron on the built app (out/main/index.js) with
// a temp data dir, the window opens, and the key list of the embedded service shows. Runs wherever
// an Electron binary exists; elsewhere it is skipped with "skipped: no Electron binary".

test("the Electron app opens its window and shows the key list of the embedded service", async (t) => {
  const binary = electronBinaryPath();
  if (binary === null) {
    t.skip("skipped: no Electron binary");
    return;
  }
  if (process.platform === "linux" && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    t.skip("skipped: no display (run under xvfb-run)");
    return;
  }
  assert.ok(existsSync(join(REPO_ROOT, "out", "main", "index.js")), 'the app is built ("npm run build")');
  const { _electron: electron } = await import("playwright-core");
  const dataDir = await makeTempDir("keydesk-e2e-");
  t.after(() => removeDir(dataDir));

  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name, value]) =>
        value !== undefined && !name.startsWith("KEY_SERVICE_") && name !== "ELECTRON_RUN_AS_NODE",
    ),
  ) as Record<string, string>;
  const app = await electron.launch({
    executablePath: binary,
    // Chromium refuses to run as root with its sandbox (CI runs as root).
    args: [...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), REPO_ROOT],
    env: { ...env, KEYDESK_DATA_DIR: dataDir },
    timeout: 60_000,
  });
  t.after(() => app.close());

  const window = await app.firstWindow({ timeout: 60_000 });
  assert.equal(await window.title(), "Keydesk");
  // The page reaches main only through window.keydesk: create a key, then see it listed.
  const created = await window.evaluate(() =>
    (window as unknown as { keydesk: import("../../shared/bridge.ts").KeydeskBridge }).keydesk["keys.create"](
      {
        request: { name: "e2e launch key" },
      },
    ),
  );
  assert.ok(created.ok, JSON.stringify(created));
  await window.reload();
  await window.getByTestId("key-list").getByText("e2e launch key").waitFor({ timeout: 30_000 });
  await window
    .getByTestId("service-status")
    .getByText(/running at http:\/\/127\.0\.0\.1:\d+/)
    .waitFor();
  // Nothing but the contract is exposed.
  const exposed = await window.evaluate(() =>
    Object.keys((window as unknown as { keydesk: object }).keydesk).sort(),
  );
  const { BRIDGE_METHODS } = await import("../../shared/bridgeMethods.ts");
  assert.deepEqual(exposed, [...BRIDGE_METHODS, "onEvent"].sort());
});
