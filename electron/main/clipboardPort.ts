// Electron 45's clipboard is asynchronous (readText/writeText return promises) while the core's
// ClipboardPort is synchronous. This adapter keeps the core's rule, "clear the clipboard only if it
// still holds what we copied", by doing the check itself when the core clears (writes "").
// No `electron` import: it takes the clipboard as a parameter and is tested in plain Node.

import type { ClipboardPort } from "./corePorts.ts";

export interface AsyncClipboard {
  readText(): Promise<string>;
  writeText(text: string): Promise<void>;
}

export function clipboardPortOf(
  clipboard: AsyncClipboard,
  onError: (error: unknown) => void = (error) => console.error("keydesk: clipboard:", error),
): ClipboardPort & { settled(): Promise<void> } {
  /** What Keydesk last put on the clipboard ("" when nothing, or after a clear). */
  let lastWritten = "";
  let pending: Promise<void> = Promise.resolve();
  const enqueue = (work: () => Promise<void>): void => {
    pending = pending.then(work).catch(onError);
  };
  return {
    writeText(text) {
      if (text === "") {
        // The core clears: only if the system clipboard still holds our value (the user may
        // have copied something else since).
        const ours = lastWritten;
        lastWritten = "";
        enqueue(async () => {
          if (ours !== "" && (await clipboard.readText()) === ours) {
            await clipboard.writeText("");
          }
        });
        return;
      }
      lastWritten = text;
      enqueue(() => clipboard.writeText(text));
    },
    // The core compares this with what it copied before clearing; the real comparison with the
    // system clipboard happens in writeText("").
    readText: () => lastWritten,
    /** Resolves when every clipboard operation started so far has finished (for tests). */
    settled: () => pending,
  };
}
