/**
 * The control channel between a test and the built main bundle running on the stand-in
 * `electron` (Node IPC with advanced serialization, i.e. structured clone like Electron's IPC).
 * The test sends requests; the child answers each by id and reports once, on its own, when the
 * app has quit (the moment real Electron would end the process).
 */

/** Environment of the child that the stand-in reads (set by mainBundleProcess.ts). */
export const STAND_IN_ENV = {
  /** Folder under which app.getPath(name) answers `<folder>/<name>` (never the user's real folders). */
  home: "KEYDESK_STANDIN_HOME",
  /** "taken": another instance holds the single-instance lock. */
  instanceLock: "KEYDESK_STANDIN_INSTANCE_LOCK",
  /** A net error name (e.g. "ERR_ABORTED"): every window load fails with it, as Electron's would. */
  failLoads: "KEYDESK_STANDIN_FAIL_LOADS",
} as const;

/** The frame a simulated `ipcRenderer.invoke` comes from. */
export type SenderFrame =
  /** The main frame of the app's window, at the URL the window loaded. */
  | "main"
  /** A sub-frame of the app's window showing another page (an iframe, a navigated frame). */
  | { url: string }
  /** No frame: Electron gives null when the frame has gone or navigated since it sent. */
  | null;

export type ControlRequest =
  | { op: "snapshot" }
  /** `ipcRenderer.invoke(channel, ...args)` from `frame` of the window. */
  | { op: "invoke"; channel: string; args: unknown[]; frame: SenderFrame }
  /** The window's page starts a navigation (a link, a form, `location = ...`) or is redirected. */
  | {
      op: "navigate";
      event: "will-navigate" | "will-redirect" | "will-frame-navigate";
      url: string;
      /** False: a sub-frame navigates (only will-frame-navigate is emitted for those). */
      isMainFrame?: boolean;
    }
  /** The page calls `window.open(url)` (or a link with target=_blank). */
  | { op: "openWindow"; url: string }
  | { op: "attachWebview"; src: string }
  /** The page asks for a permission (camera, notifications, ...). */
  | { op: "requestPermission"; permission: string; requestingUrl: string }
  | { op: "checkPermission"; permission: string; requestingOrigin: string }
  /** A response reaches the window's session: what headers does the app make of it? */
  | { op: "responseHeaders"; url: string; responseHeaders: Record<string, string[]> }
  /** The user closes the window (the close button). */
  | { op: "closeWindow" }
  /** The user quits the app (its Quit menu item, Cmd+Q) with the window still open. */
  | { op: "quitApp" }
  /** After the "quit" notice: end the process now, as Electron would (no reply). */
  | { op: "exit" };

export type ControlMessage = { id: number; request: ControlRequest };

export type ControlReply =
  | { id: number; ok: true; value: unknown }
  /** The request itself failed (e.g. an invoke whose handler threw): Electron's message. */
  | { id: number; ok: false; error: string };

/** Sent by the child, unasked, when the app has quit (after "quit") or called app.exit. */
export type QuitNotice = { type: "quit"; exitCode: number };

/** What `invoke` answers: like the renderer's `ipcRenderer.invoke` promise. */
export type InvokeOutcome = { resolved: true; value: unknown } | { resolved: false; message: string };

/** The recorded state of the stand-in, as the test sees it. */
export interface StandInSnapshot {
  /** Calls on the stand-in and Electron events it emitted, in order ("app.enableSandbox", "event ready", ...). */
  log: string[];
  appListeners: string[];
  /** Channels that have an ipcMain.handle handler now, in registration order. */
  handledChannels: string[];
  /** Channels with ipcMain.on / once listeners (fire-and-forget messages). */
  ipcMainListeners: string[];
  windows: WindowRecord[];
  clipboardWrites: string[];
  /** The system notifications main showed (Electron's Notification), in order. */
  notificationsShown: Array<{ title: string; body: string }>;
  /** What main sent to the renderer (webContents.send). */
  sentToRenderer: Array<{ channel: string; args: unknown[] }>;
}

export interface WindowRecord {
  /** The options given to `new BrowserWindow(...)`. */
  options: unknown;
  /** Every URL the window was told to load (loadURL, or loadFile as a file: URL). */
  loaded: string[];
  destroyed: boolean;
  shown: boolean;
  webContentsListeners: string[];
  hasWindowOpenHandler: boolean;
  /** The handlers set on the window's session. */
  session: SessionRecord;
}

export interface SessionRecord {
  hasPermissionRequestHandler: boolean;
  hasPermissionCheckHandler: boolean;
  hasDevicePermissionHandler: boolean;
  hasHeadersReceivedListener: boolean;
}
