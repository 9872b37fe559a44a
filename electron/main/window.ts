import { fileURLToPath, pathToFileURL } from "node:url";
import { app, BrowserWindow, type Session } from "electron";
import { CONTENT_SECURITY_POLICY, isAllowedNavigation, secureWebPreferences } from "./security.ts";

/**
 * URL of the renderer's page: the electron-vite dev server when it runs (never in a packaged app),
 * otherwise the built index.html next to the built main process (out/renderer/index.html).
 */
export function rendererEntryUrl(): string {
  const devServerUrl = app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL;
  if (devServerUrl) {
    return devServerUrl;
  }
  return pathToFileURL(fileURLToPath(new URL("../renderer/index.html", import.meta.url))).href;
}

/** Deny every permission (camera, notifications, clipboard read, ...) and enforce the CSP. */
function hardenSession(session: Session): void {
  session.setPermissionRequestHandler((_webContents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: { ...details.responseHeaders, "Content-Security-Policy": [CONTENT_SECURITY_POLICY] },
    });
  });
}

/**
 * Creates the main window showing `entryUrl`; `appOrigin` is the app origin of that URL
 * (see appOriginOf in security.ts): the window never leaves it.
 */
export function createMainWindow(entryUrl: string, appOrigin: string): BrowserWindow {
  const preloadPath = fileURLToPath(new URL("../preload/index.cjs", import.meta.url));
  const win = new BrowserWindow({
    title: "Keydesk",
    width: 1200,
    height: 800,
    minWidth: 800,
    minHeight: 500,
    show: false,
    webPreferences: {
      ...secureWebPreferences(preloadPath),
      // Repeated as literals so that static checkers (Electronegativity, in the tests) see them.
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      // No middle-click: it would open links in new windows (window.open is denied anyway).
      disableBlinkFeatures: "Auxclick",
    },
  });
  const { webContents } = win;
  hardenSession(webContents.session);

  webContents.on("will-navigate", (event) => {
    if (!isAllowedNavigation(event.url, appOrigin)) {
      event.preventDefault();
    }
  });
  webContents.on("will-redirect", (event) => {
    if (!isAllowedNavigation(event.url, appOrigin)) {
      event.preventDefault();
    }
  });
  // will-navigate sees only the main frame. The app has no sub-frames: one that appears (an
  // injected iframe) may not load anything, and the main frame is held to the app here as well.
  webContents.on("will-frame-navigate", (event) => {
    if (!event.isMainFrame || !isAllowedNavigation(event.url, appOrigin)) {
      event.preventDefault();
    }
  });
  webContents.setWindowOpenHandler(() => ({ action: "deny" }));
  webContents.on("will-attach-webview", (event) => {
    event.preventDefault();
  });

  win.once("ready-to-show", () => win.show());
  // loadURL rejects when the load fails or is cut short (a quit or a refused navigation during the
  // load: ERR_ABORTED). Unhandled, that rejection is an uncaught error of the main process.
  win.loadURL(entryUrl).catch((error: unknown) => {
    console.error("keydesk: the window could not load its page:", error);
  });
  return win;
}
