import type { ClipboardPort } from "./corePorts.ts";

/**
 * A clipboard in memory: the browser host has no system clipboard of its own (the page cannot
 * read this one), and tests of the core run without Electron.
 */
export class MemoryClipboard implements ClipboardPort {
  text = "";

  async writeText(text: string): Promise<void> {
    this.text = text;
  }

  async readText(): Promise<string> {
    return this.text;
  }
}
