import type {
  ControlMessage,
  ControlReply,
  ControlRequest,
  InvokeOutcome,
  QuitNotice,
  SenderFrame,
  StandInSnapshot,
} from "../protocol.ts";
import { app } from "./app.ts";
import { allWindows, BrowserWindow, type StandInFrame, subFrame } from "./browserWindow.ts";
import { ipcMain } from "./ipcMain.ts";
import { electronEvent, lifecycle, recorded } from "./state.ts";

/**
 * The child's end of the control channel: answers the test's requests by playing what the
 * renderer, the user or Chromium would do to the app's one window, and reports the app's quit.
 */
export function startControlChannel(): void {
  const send = process.send?.bind(process);
  if (!send) throw new Error("electron stand-in: start the bundle with an IPC channel (child_process.fork)");
  let exitCode = 0;
  lifecycle.ended = (code) => {
    // Real Electron ends the process now; this one waits for the test to look at the stopped
    // app (port, database) and say "exit", or for the test to go away.
    exitCode = code;
    process.once("disconnect", () => process.exit(exitCode));
    send({ type: "quit", exitCode } satisfies QuitNotice);
  };
  process.on("message", ({ id, request }: ControlMessage) => {
    if (request.op === "exit") {
      process.exit(exitCode);
    }
    perform(request).then(
      (value) => send({ id, ok: true, value } satisfies ControlReply),
      (error: unknown) => send({ id, ok: false, error: String(error) } satisfies ControlReply),
    );
  });
}

async function perform(request: Exclude<ControlRequest, { op: "exit" }>): Promise<unknown> {
  switch (request.op) {
    case "snapshot":
      return snapshot();
    case "invoke":
      return invoke(request.channel, request.args, request.frame);
    case "navigate": {
      const contents = theWindow().webContents;
      const event = electronEvent({
        url: request.url,
        isMainFrame: request.isMainFrame ?? true,
        isSameDocument: false,
        frame: contents.mainFrame,
        initiator: contents.mainFrame,
      });
      // Electron passes the URL a second time (deprecated), so both listener styles work.
      contents.emit(request.event, event, request.url);
      return { prevented: event.defaultPrevented };
    }
    case "openWindow": {
      const contents = theWindow().webContents;
      if (contents.windowOpenHandler === null) return { handled: false };
      const answer = contents.windowOpenHandler({
        url: request.url,
        frameName: "",
        features: "",
        disposition: "foreground-tab",
        referrer: { url: contents.getURL(), policy: "strict-origin-when-cross-origin" },
      });
      return { handled: true, answer: structuredClone(answer) };
    }
    case "attachWebview": {
      const event = electronEvent({});
      theWindow().webContents.emit("will-attach-webview", event, {}, { src: request.src });
      return { prevented: event.defaultPrevented };
    }
    case "requestPermission":
      return requestPermission(request.permission, request.requestingUrl);
    case "checkPermission": {
      const contents = theWindow().webContents;
      const handler = contents.session.permissionCheckHandler;
      if (handler === null) return { handled: false };
      const details = { isMainFrame: true, requestingUrl: request.requestingOrigin };
      return {
        handled: true,
        granted: (handler as (...args: unknown[]) => unknown)(
          contents,
          request.permission,
          request.requestingOrigin,
          details,
        ),
      };
    }
    case "responseHeaders":
      return responseHeaders(request.url, request.responseHeaders);
    case "closeWindow":
      theWindow().close();
      return null;
    case "quitApp":
      app.quit();
      return null;
  }
}

/** The app's window: the one window not closed yet. */
function theWindow(): BrowserWindow {
  const [window] = BrowserWindow.getAllWindows();
  if (!window) throw new Error("electron stand-in: the app has no open window");
  return window;
}

function senderFrame(spec: SenderFrame, mainFrame: StandInFrame): StandInFrame | null {
  if (spec === "main") return mainFrame;
  if (spec === null) return null;
  return subFrame(mainFrame, spec.url);
}

/** What `ipcRenderer.invoke(channel, ...args)` from `frame` gets, as Electron delivers it. */
async function invoke(channel: string, args: unknown[], frame: SenderFrame): Promise<InvokeOutcome> {
  const handler = ipcMain.handlers.get(channel);
  const failed = (error: unknown): InvokeOutcome => ({
    resolved: false,
    message: `Error invoking remote method '${channel}': ${String(error)}`,
  });
  if (!handler) return failed(new Error(`No handler registered for '${channel}'`));
  const contents = theWindow().webContents;
  const sender = senderFrame(frame, contents.mainFrame);
  const event = {
    type: "frame",
    sender: contents,
    senderFrame: sender,
    frameId: sender?.routingId ?? -1,
    processId: contents.mainFrame.processId,
  };
  try {
    // Electron clones the answer (structured clone) on its way to the renderer.
    return { resolved: true, value: structuredClone(await handler(event, ...args)) };
  } catch (error) {
    return failed(error);
  }
}

async function requestPermission(permission: string, requestingUrl: string): Promise<unknown> {
  const contents = theWindow().webContents;
  const handler = contents.session.permissionRequestHandler;
  if (handler === null) return { handled: false };
  const granted = await new Promise<unknown>((resolveAnswer) => {
    setTimeout(() => resolveAnswer("no answer within 2 s"), 2000).unref();
    (handler as (...args: unknown[]) => unknown)(contents, permission, resolveAnswer, {
      isMainFrame: true,
      requestingUrl,
    });
  });
  return { handled: true, granted };
}

async function responseHeaders(url: string, headers: Record<string, string[]>): Promise<unknown> {
  const contents = theWindow().webContents;
  const listener = contents.session.webRequest.headersReceived;
  if (listener === null) return { handled: false };
  const response = await new Promise<unknown>((resolveResponse) => {
    setTimeout(() => resolveResponse("no answer within 2 s"), 2000).unref();
    (listener as (...args: unknown[]) => unknown)(
      {
        id: 1,
        url,
        method: "GET",
        resourceType: "mainFrame",
        timestamp: Date.now(),
        statusLine: "HTTP/1.1 200 OK",
        statusCode: 200,
        responseHeaders: headers,
        webContents: contents,
        frame: contents.mainFrame,
      },
      resolveResponse,
    );
  });
  return { handled: true, response: structuredClone(response) };
}

function snapshot(): StandInSnapshot {
  return structuredClone({
    log: recorded.log,
    appListeners: app.eventNames().map(String),
    handledChannels: [...ipcMain.handlers.keys()],
    ipcMainListeners: ipcMain.eventNames().map(String),
    windows: allWindows.map((window) => {
      const { session, windowOpenHandler } = window.webContents;
      return {
        options: window.options,
        loaded: window.loaded,
        destroyed: window.isDestroyed(),
        shown: window.isVisible(),
        webContentsListeners: window.webContents.eventNames().map(String),
        hasWindowOpenHandler: windowOpenHandler !== null,
        session: {
          hasPermissionRequestHandler: session.permissionRequestHandler !== null,
          hasPermissionCheckHandler: session.permissionCheckHandler !== null,
          hasDevicePermissionHandler: session.devicePermissionHandler !== null,
          hasHeadersReceivedListener: session.webRequest.headersReceived !== null,
        },
      };
    }),
    clipboardWrites: recorded.clipboardWrites,
    notificationsShown: recorded.notificationsShown,
    sentToRenderer: recorded.sentToRenderer,
  });
}
