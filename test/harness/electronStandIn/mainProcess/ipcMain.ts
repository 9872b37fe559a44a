import { EventEmitter } from "node:events";
import { log } from "./state.ts";

export type InvokeHandler = (event: object, ...args: unknown[]) => unknown;

/** Electron's `ipcMain`: invoke handlers by channel (one each), plus fire-and-forget listeners. */
class IpcMain extends EventEmitter {
  readonly handlers = new Map<string, InvokeHandler>();

  handle(channel: string, handler: InvokeHandler): void {
    log(`ipcMain.handle ${channel}`);
    if (this.handlers.has(channel)) {
      throw new Error(`Attempted to register a second handler for '${channel}'`);
    }
    this.handlers.set(channel, handler);
  }

  removeHandler(channel: string): void {
    log(`ipcMain.removeHandler ${channel}`);
    this.handlers.delete(channel);
  }
}

export const ipcMain = new IpcMain();
