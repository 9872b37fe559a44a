// The stand-in `electron` module of the main process: what `import ... from "electron"` gives
// the built main bundle in the tests (register.ts maps the specifier here). Only what Keydesk
// uses is modelled; an import of anything else fails at link time, naming the missing export.

import { log, recorded } from "./state.ts";

export { app } from "./app.ts";
export { BrowserWindow } from "./browserWindow.ts";
export { ipcMain } from "./ipcMain.ts";
export { session } from "./session.ts";

let clipboardText = "";

/** Electron 45's clipboard: the text calls answer promises (like navigator.clipboard). */
export const clipboard = {
  async writeText(text: string): Promise<void> {
    log("clipboard.writeText");
    recorded.clipboardWrites.push(text);
    clipboardText = text;
  },
  async readText(): Promise<string> {
    return clipboardText;
  },
  clear(): void {
    log("clipboard.clear");
    clipboardText = "";
  },
};

/**
 * Electron 45's Notification, as main shows one: `new Notification({ title, body }).show()`. Each
 * shown one is recorded (the snapshot's notificationsShown); isSupported() answers true, as on a
 * desktop with a notification server.
 */
export class Notification {
  static isSupported(): boolean {
    return true;
  }
  readonly #options: { title: string; body: string };
  constructor(options: { title: string; body: string }) {
    this.#options = { title: options.title, body: options.body };
  }
  show(): void {
    log("notification.show");
    recorded.notificationsShown.push(this.#options);
  }
}

/**
 * Electron 45's dialog, as the export's save dialog uses it: the stand-in has no one to choose a
 * file, so every save dialog is cancelled (the export's browser-host path writes no file either).
 */
export const dialog = {
  async showSaveDialog(..._args: unknown[]): Promise<{ canceled: boolean; filePath: string }> {
    log("dialog.showSaveDialog");
    return { canceled: true, filePath: "" };
  },
};
