import { EventEmitter } from "node:events";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { STAND_IN_ENV } from "../protocol.ts";
import { type Session, sessionFor } from "./session.ts";
import { electronEvent, lifecycle, log, openWindows, recorded } from "./state.ts";

let nextId = 1;

/** Electron's WebFrameMain, as far as IPC senders and navigation events carry one. */
export interface StandInFrame {
  readonly url: string;
  readonly top: StandInFrame;
  readonly parent: StandInFrame | null;
  readonly frameTreeNodeId: number;
  readonly processId: number;
  readonly routingId: number;
  readonly name: string;
}

/** A sub-frame of `top` (an iframe) showing `url`. */
export function subFrame(top: StandInFrame, url: string): StandInFrame {
  const id = nextId++;
  return { url, top, parent: top, frameTreeNodeId: id, processId: top.processId, routingId: id, name: "" };
}

type WindowOpenHandler = (details: object) => unknown;

export class WebContents extends EventEmitter {
  readonly id = nextId++;
  readonly session: Session;
  readonly mainFrame: StandInFrame;
  windowOpenHandler: WindowOpenHandler | null = null;
  #url = "";
  #destroyed = false;

  constructor(session: Session) {
    super();
    this.session = session;
    const contents = this;
    const processId = nextId++;
    this.mainFrame = {
      get url() {
        return contents.#url;
      },
      get top() {
        return contents.mainFrame;
      },
      parent: null,
      frameTreeNodeId: nextId++,
      processId,
      routingId: nextId++,
      name: "",
    };
  }

  getURL(): string {
    return this.#url;
  }

  /** The page now shown (the stand-in's load). */
  showPage(url: string): void {
    this.#url = url;
  }

  setWindowOpenHandler(handler: WindowOpenHandler): void {
    log("webContents.setWindowOpenHandler");
    this.windowOpenHandler = handler;
  }

  send(channel: string, ...args: unknown[]): void {
    if (this.#destroyed) throw new Error("Object has been destroyed");
    // Electron serializes what it sends with the structured clone algorithm.
    recorded.sentToRenderer.push({ channel, args: structuredClone(args) });
  }

  isDestroyed(): boolean {
    return this.#destroyed;
  }

  destroy(): void {
    this.#destroyed = true;
    this.emit("destroyed");
  }
}

const NET_ERRORS: Record<string, number> = { ERR_FAILED: -2, ERR_ABORTED: -3, ERR_FILE_NOT_FOUND: -6 };

/** The error of a failed load, as Electron makes it. */
function loadFailure(code: string, url: string): Error {
  const errno = NET_ERRORS[code] ?? -2;
  return Object.assign(new Error(`${code} (${errno}) loading '${url}'`), { code, errno, url });
}

/** Every window ever made, destroyed ones too (the test sees them all). */
export const allWindows: BrowserWindow[] = [];

type WindowOptions = { show?: boolean; webPreferences?: { partition?: string } };

export class BrowserWindow extends EventEmitter {
  static getAllWindows(): BrowserWindow[] {
    return allWindows.filter((window) => !window.isDestroyed());
  }

  readonly id = nextId++;
  readonly options: WindowOptions;
  readonly webContents: WebContents;
  readonly loaded: string[] = [];
  #shown: boolean;
  #destroyed = false;
  #readyToShowSent = false;

  constructor(options: WindowOptions = {}) {
    super();
    log("new BrowserWindow");
    this.options = options;
    this.#shown = options.show !== false;
    this.webContents = new WebContents(sessionFor(options.webPreferences?.partition));
    allWindows.push(this);
    openWindows.add(this);
  }

  loadURL(url: string): Promise<void> {
    log(`win.loadURL ${url}`);
    return this.#load(url);
  }

  loadFile(filePath: string, options: { query?: Record<string, string>; hash?: string } = {}): Promise<void> {
    log(`win.loadFile ${filePath}`);
    const url = pathToFileURL(resolve(filePath));
    for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
    if (options.hash) url.hash = options.hash;
    return this.#load(url.href);
  }

  /**
   * Like Electron: the promise rejects when the load fails (ERR_FILE_NOT_FOUND for a file: page
   * that does not exist, or the error STAND_IN_ENV.failLoads names).
   */
  #load(url: string): Promise<void> {
    this.loaded.push(url);
    const forcedFailure = process.env[STAND_IN_ENV.failLoads];
    if (forcedFailure) return Promise.reject(loadFailure(forcedFailure, url));
    if (url.startsWith("file:") && !existsSync(fileURLToPath(url))) {
      return Promise.reject(loadFailure("ERR_FILE_NOT_FOUND", url));
    }
    this.webContents.showPage(url);
    return new Promise((resolveLoad) =>
      setImmediate(() => {
        this.webContents.emit("did-finish-load");
        if (!this.#readyToShowSent) {
          this.#readyToShowSent = true;
          this.emit("ready-to-show");
        }
        resolveLoad();
      }),
    );
  }

  show(): void {
    log("win.show");
    this.#shown = true;
  }

  isVisible(): boolean {
    return this.#shown;
  }

  focus(): void {
    log("win.focus");
  }

  isMinimized(): boolean {
    return false;
  }

  restore(): void {
    log("win.restore");
  }

  isDestroyed(): boolean {
    return this.#destroyed;
  }

  /** As the close button: "close" (a listener may keep the window), then it is destroyed. */
  close(): void {
    log("win.close");
    if (this.#destroyed) return;
    const event = electronEvent({});
    this.emit("close", event);
    if (event.defaultPrevented) return;
    setImmediate(() => this.destroy());
  }

  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    openWindows.delete(this);
    this.webContents.destroy();
    log("event closed");
    this.emit("closed");
    if (openWindows.size === 0) lifecycle.allWindowsClosed();
  }
}
