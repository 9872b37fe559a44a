// The page's own clipboard, for the browser host: there a copy of a publicApiKey answers the value
// to the page (the host's process cannot reach the clipboard of the user's browser), and the page
// writes it with the Clipboard API and clears it after the delay, like main does in the desktop app.

/**
 * What the page needs of `navigator.clipboard` (a fake in unit tests).
 * @internal Exported for tests.
 */
export interface TextClipboard {
  writeText(text: string): Promise<void>;
  readText(): Promise<string>;
}

/**
 * Clears the clipboard if it still holds `copied`; leaves it alone when it holds something else
 * (the user copied since). When the browser will not let the page read the clipboard, the page
 * cannot tell, and clears it: a publicApiKey must not stay on the clipboard.
 * @internal Exported for tests.
 */
export async function clearIfStillHolds(
  clipboard: TextClipboard,
  copied: string,
  canRead: boolean,
): Promise<"cleared" | "kept"> {
  if (canRead) {
    let current: string | null = null;
    try {
      current = await clipboard.readText();
    } catch {
      // Refused after all: clear as if it could not be read.
    }
    if (current !== null && current !== copied) return "kept";
  }
  await clipboard.writeText("");
  return "cleared";
}

/** Whether reading the clipboard is granted already (never asks: no prompt 30 s after a copy). */
async function readGranted(): Promise<boolean> {
  try {
    const status = await navigator.permissions.query({ name: "clipboard-read" as PermissionName });
    return status.state === "granted";
  } catch {
    return false;
  }
}

/**
 * Writes `text` to the clipboard (rejects when the browser refuses), then clears it after
 * `clearsAfterMs` if it still holds it. A clear that fails because the page is not focused
 * (browsers let only a focused page write the clipboard) runs when the page is focused again.
 */
export async function writeAndClearLater(text: string, clearsAfterMs: number): Promise<void> {
  if (!navigator.clipboard) {
    throw new Error("this browser gives the page no clipboard (it needs a secure context)");
  }
  await navigator.clipboard.writeText(text);
  setTimeout(() => {
    const clear = async () => clearIfStillHolds(navigator.clipboard, text, await readGranted());
    clear().catch(() => window.addEventListener("focus", () => void clear().catch(() => {}), { once: true }));
  }, clearsAfterMs);
}
