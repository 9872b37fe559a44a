// The renderer's one way to main: `window.keydesk` (the preload's bridge) under Electron, or the
// same contract over HTTP when the page is served by the browser host (`npm run web`).

import type { BridgeError, BridgeEvent, BridgeResult, KeydeskBridge } from "../../shared/bridge.ts";
import { buildKeydeskBridge } from "../../shared/bridgeMethods.ts";
import { TOKEN_HEADER, UPLOAD_NAME_HEADER } from "../../shared/httpHeaders.ts";

const TOKEN_STORAGE_KEY = "keydesk.sessionToken";

/**
 * The browser host's session token: from the page's URL (?token=) the first time, then from
 * sessionStorage. The token is removed from the address bar once stored, so that it does not
 * linger in the history or get copied along with the URL.
 *
 * sessionStorage, not a cookie, is what carries it across a reload: the host's cookie goes to
 * every port of 127.0.0.1 (cookies ignore ports), so it holds only a secret for the static files.
 * sessionStorage belongs to this tab and this origin, and the origin includes the port: pages of
 * other local servers cannot read it, and it is gone when the tab closes. A new tab or a bookmark
 * has no token: the host answers it its help page, or, while the browser still has the cookie,
 * the page loads and shows the host's refusal of its calls ("open the address keydesk web printed").
 */
function sessionToken(): string {
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get("token");
  if (fromUrl) {
    sessionStorage.setItem(TOKEN_STORAGE_KEY, fromUrl);
    url.searchParams.delete("token");
    history.replaceState(history.state, "", `${url.pathname}${url.search}${url.hash}`);
    return fromUrl;
  }
  return sessionStorage.getItem(TOKEN_STORAGE_KEY) ?? "";
}

function failed(messageId: BridgeError["messageId"], text: string): BridgeResult<never> {
  return { ok: false, error: { messageId, text } };
}

/** The bridge over the browser host's HTTP endpoints: POST /bridge/<method>, GET /bridge/events. */
function httpBridge(token: string): KeydeskBridge {
  const listeners = new Set<(event: BridgeEvent) => void>();
  let source: EventSource | null = null;
  // No token at all is sent as none, so that the host says it is missing rather than wrong.
  const auth: Record<string, string> = token === "" ? {} : { [TOKEN_HEADER]: token };
  return buildKeydeskBridge({
    call: async (method, args) => {
      let response: Response;
      try {
        response = await fetch(`/bridge/${encodeURIComponent(method)}`, {
          method: "POST",
          headers: args === undefined ? auth : { ...auth, "Content-Type": "application/json" },
          body: args === undefined ? null : JSON.stringify(args),
        });
      } catch (error) {
        return failed("UNREACHABLE", `The Keydesk web host does not answer: ${(error as Error).message}`);
      }
      try {
        return (await response.json()) as BridgeResult<unknown>;
      } catch {
        return failed("GENERAL_ERROR", `The Keydesk web host answered ${response.status} without a result.`);
      }
    },
    subscribe: (listener) => {
      listeners.add(listener);
      if (source === null) {
        source = new EventSource(`/bridge/events?token=${encodeURIComponent(token)}`);
        source.onmessage = (message: MessageEvent<string>) => {
          const event = JSON.parse(message.data) as BridgeEvent;
          for (const each of listeners) {
            each(event);
          }
        };
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && source !== null) {
          source.close();
          source = null;
        }
      };
    },
  });
}

let bridge: KeydeskBridge | null = null;

/** The bridge of this page: the preload's under Electron, otherwise the browser host's. */
export function getBridge(): KeydeskBridge {
  bridge ??= window.keydesk ?? httpBridge(sessionToken());
  return bridge;
}

/**
 * The address of a one-time download of the browser host (keys.export answers its path), with
 * the session token: the page navigates there and the browser saves the file, so that its
 * content never passes through the page's JS.
 */
export function downloadHref(path: string): string {
  return `${path}?token=${encodeURIComponent(sessionStorage.getItem(TOKEN_STORAGE_KEY) ?? "")}`;
}

/**
 * Whether the page is the desktop app's (Electron's preload): there main shows system
 * notifications; in the browser host the page shows them with the Notification API.
 */
export function inDesktopApp(): boolean {
  return window.keydesk !== undefined;
}

/** Whether main has the desktop's file dialogs (Electron's preload); the browser host has none. */
export function hasFileDialogs(): boolean {
  return window.keydesk !== undefined;
}

/**
 * Uploads a backup to restore to the browser host (its one way to reach main: the page has no
 * path to give). The answer's uploadId goes to backup.inspect.
 */
export async function uploadBackupFile(file: File): Promise<BridgeResult<{ uploadId: string }>> {
  const token = sessionStorage.getItem(TOKEN_STORAGE_KEY) ?? "";
  try {
    const response = await fetch("/upload/backup", {
      method: "POST",
      headers: {
        ...(token === "" ? {} : { [TOKEN_HEADER]: token }),
        [UPLOAD_NAME_HEADER]: encodeURIComponent(file.name),
        "Content-Type": "application/octet-stream",
      },
      body: file,
    });
    return (await response.json()) as BridgeResult<{ uploadId: string }>;
  } catch (error) {
    return failed("UNREACHABLE", `The file could not be sent to Keydesk: ${(error as Error).message}`);
  }
}
