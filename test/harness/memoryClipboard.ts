import type { ClipboardPort } from "../../electron/main/corePorts.ts";

/** A clipboard in memory, for tests of the core that run without Electron. */
export class MemoryClipboard implements ClipboardPort {
  text = "";

  async writeText(text: string): Promise<void> {
    this.text = text;
  }

  async readText(): Promise<string> {
    return this.text;
  }
}
