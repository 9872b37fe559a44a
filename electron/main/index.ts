import { app, type BrowserWindow, type IpcMainInvokeEvent, ipcMain } from "electron";
import { APP_VERSION_CHANNEL } from "../preload/bridge-contract.ts";
import { appOriginOf, isTrustedSender } from "./security.ts";
import { createMainWindow, rendererEntryUrl } from "./window.ts";

// Every renderer is sandboxed, whatever its webPreferences say. Must run before "ready".
app.enableSandbox();

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

  const openMainWindow = (): void => {
    const win = createMainWindow(entryUrl, appOrigin);
    win.on("closed", () => {
      if (mainWindow === win) {
        mainWindow = null;
      }
    });
    mainWindow = win;
  };

  /** Rejects IPC calls from any frame but the app's own page. */
  const assertTrustedSender = (event: IpcMainInvokeEvent): void => {
    const frameUrl = event.senderFrame?.url ?? "";
    if (!isTrustedSender(frameUrl, appOrigin)) {
      throw new Error(`IPC call from an untrusted frame: "${frameUrl}"`);
    }
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

  app
    .whenReady()
    .then(() => {
      ipcMain.handle(APP_VERSION_CHANNEL, (event) => {
        assertTrustedSender(event);
        return app.getVersion();
      });
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
