import { EventEmitter } from "node:events";
import { join } from "node:path";
import { STAND_IN_ENV } from "../protocol.ts";
import { electronEvent, lifecycle, log, openWindows } from "./state.ts";

/**
 * Electron's `app`, with its life cycle as Electron runs it: the main script runs first, then
 * "ready"; quit() emits "before-quit" (a listener may hold the quit), closes the windows, then
 * "will-quit" and "quit", and the process ends. Closing the last window otherwise emits
 * "window-all-closed" (or quits when nobody listens), as Electron does.
 */
class App extends EventEmitter {
  readonly isPackaged = false;
  #ready = false;
  #quitting = false;
  #resolveReady: () => void = () => {};
  readonly #readyPromise = new Promise<void>((resolveReady) => {
    this.#resolveReady = resolveReady;
  });

  constructor() {
    super();
    lifecycle.allWindowsClosed = () => this.#allWindowsClosed();
    // Electron evaluates the whole main script before it emits "ready".
    setImmediate(() => this.#becomeReady());
  }

  #becomeReady(): void {
    if (this.#quitting) return;
    this.#ready = true;
    log("event ready");
    this.emit("ready", electronEvent({}), {});
    this.#resolveReady();
  }

  whenReady(): Promise<void> {
    return this.#readyPromise;
  }

  isReady(): boolean {
    return this.#ready;
  }

  enableSandbox(): void {
    log("app.enableSandbox");
    if (this.#ready) throw new Error("app.enableSandbox() can only be called before app is ready");
  }

  requestSingleInstanceLock(): boolean {
    log("app.requestSingleInstanceLock");
    return process.env[STAND_IN_ENV.instanceLock] !== "taken";
  }

  getPath(name: string): string {
    log(`app.getPath ${name}`);
    const home = process.env[STAND_IN_ENV.home];
    if (!home) throw new Error(`electron stand-in: ${STAND_IN_ENV.home} is not set`);
    return join(home, name);
  }

  quit(): void {
    log("app.quit");
    if (this.#quitting) return;
    const beforeQuit = electronEvent({});
    log("event before-quit");
    this.emit("before-quit", beforeQuit);
    if (beforeQuit.defaultPrevented) return;
    this.#quitting = true;
    if (openWindows.size === 0) {
      this.#shutdown();
    } else {
      for (const window of [...openWindows]) window.close();
    }
  }

  exit(exitCode = 0): void {
    log(`app.exit ${exitCode}`);
    lifecycle.ended(exitCode);
  }

  #allWindowsClosed(): void {
    if (this.#quitting) {
      this.#shutdown();
    } else if (this.listenerCount("window-all-closed") > 0) {
      log("event window-all-closed");
      this.emit("window-all-closed", electronEvent({}));
    } else {
      this.quit();
    }
  }

  #shutdown(): void {
    const willQuit = electronEvent({});
    log("event will-quit");
    this.emit("will-quit", willQuit);
    if (willQuit.defaultPrevented) {
      this.#quitting = false;
      return;
    }
    log("event quit");
    this.emit("quit", electronEvent({}), 0);
    lifecycle.ended(0);
  }
}

export const app = new App();
