import { app, type BrowserWindow, clipboard, ipcMain } from "electron";
import { setBundledKeyListWorker } from "../service/workerLister.ts";
import { openCredentialVault } from "../vault/openCredentialVault.ts";
import { backupDialogs } from "./backupDialog.ts";
import { startKeydeskCore } from "./core.ts";
import type { KeydeskCore } from "./corePorts.ts";
import { desktopNotifier } from "./desktopNotifier.ts";
import { saveDialogExports } from "./exportDialog.ts";
import { registerBridge } from "./ipc.ts";
import { appOriginOf, isTrustedSender } from "./security.ts";
import { createMainWindow, rendererEntryUrl } from "./window.ts";

// Every renderer is sandboxed, whatever its webPreferences say. Must run before "ready".
app.enableSandbox();
// The embedded service's key list worker is its own entry of the main build, beside this one.
setBundledKeyListWorker(new URL("./keyListWorker.js", import.meta.url));

if (!app.requestSingleInstanceLock()) {
  // Another Keydesk runs: it focuses its window (see "second-instance"); this one leaves.
  app.quit();
} else {
  startKeydesk();
}

function startKeydesk(): void {
  const entryUrl = rendererEntryUrl();
  const appOrigin = appOriginOf(entryUrl);
  if (appOrigin === null) {
    throw new Error(`The renderer URL "${entryUrl}" is neither http(s) nor file`);
  }
  let mainWindow: BrowserWindow | null = null;
  let core: KeydeskCore | null = null;
  let coreClosed = false;

  const openMainWindow = (): void => {
    const win = createMainWindow(entryUrl, appOrigin);
    win.on("closed", () => {
      if (mainWindow === win) {
        mainWindow = null;
      }
    });
    mainWindow = win;
  };

  app.on("second-instance", () => {
    if (mainWindow === null) {
      return;
    }
    if (mainWindow.isMinimized()) {
      mainWindow.restore();
    }
    mainWindow.focus();
  });

  app.on("window-all-closed", () => {
    if (process.platform !== "darwin") {
      app.quit();
    }
  });

  // Stop the embedded service cleanly: hold the quit once, close the core, then quit for real.
  app.on("before-quit", (event) => {
    if (core === null || coreClosed) {
      return;
    }
    event.preventDefault();
    coreClosed = true;
    const closing = core;
    closing
      .close()
      .catch((error: unknown) => console.error("keydesk: error while stopping the core:", error))
      .finally(() => app.quit());
  });

  app
    .whenReady()
    .then(async () => {
      const vault = await openCredentialVault();
      if (vault.kind === "session-only") {
        console.warn(
          `keydesk: no OS keychain, so remote profiles' passwords are kept for this session only: ${vault.unavailableReason ?? ""}`,
        );
      }
      core = await startKeydeskCore({
        dataDir: process.env.KEYDESK_DATA_DIR ?? app.getPath("userData"),
        vault,
        clipboard,
        exportFiles: saveDialogExports(() => mainWindow),
        backupFiles: backupDialogs(() => mainWindow),
        notifier: desktopNotifier,
      });
      // Every handler checks that the calling frame is the app's own page.
      registerBridge(
        ipcMain,
        core,
        (frameUrl) => isTrustedSender(frameUrl, appOrigin),
        () => mainWindow?.webContents ?? null,
      );
      openMainWindow();
      app.on("activate", () => {
        if (mainWindow === null) {
          openMainWindow();
        }
      });
    })
    .catch((error: unknown) => {
      console.error("keydesk: failed to start:", error);
      app.exit(1);
    });
}
