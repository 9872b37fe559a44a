import type { ClipboardPort } from "../../../electron/main/corePorts.ts";

/**
 * The clipboard in memory: Electron's clipboard needs Electron. The core tests use the real
 * SessionVault (the vault the app falls back to without a keychain); everything else is real.
 */

export class MemoryClipboard implements ClipboardPort {
  text = "";
  writeText(text: string): void {
    this.text = text;
  }
  readText(): string {
    return this.text;
  }
}
