// The bridge over Electron IPC: one `ipcMain.handle` per bridge method, each checking its sender
// before the core sees the call, and the core's events pushed to the window on EVENT_CHANNEL.
// Only types come from `electron`: the handler table is built and tested in plain Node.

import type { IpcMain, IpcMainInvokeEvent, WebContents } from "electron";
import type { BridgeEvent, BridgeMethod, BridgeResult } from "../../shared/bridge.ts";
import { BRIDGE_METHODS, channelOf, EVENT_CHANNEL } from "../../shared/bridgeMethods.ts";
import type { KeydeskCore } from "./corePorts.ts";

/**
 * Thrown to the caller (the invoke rejects) when a frame outside the app calls the bridge.
 * @internal Exported for tests.
 */
export class UntrustedSenderError extends Error {
  override name = "UntrustedSenderError";
}

/**
 * One handler: the sending frame's URL and the raw argument in, the core's result out.
 * @internal Exported for tests.
 */
export type BridgeHandler = (frameUrl: string, rawArgs: unknown) => Promise<BridgeResult<unknown>>;

/**
 * The handler of every bridge method, keyed by its IPC channel. A call whose frame
 * `isTrustedFrame` rejects never reaches the core: it fails with an UntrustedSenderError.
 * @internal Exported for tests.
 */
export function bridgeHandlerTable(
  core: Pick<KeydeskCore, "dispatch">,
  isTrustedFrame: (frameUrl: string) => boolean,
): Map<string, BridgeHandler> {
  const table = new Map<string, BridgeHandler>();
  for (const method of BRIDGE_METHODS) {
    table.set(channelOf(method), async (frameUrl, rawArgs) => {
      if (!isTrustedFrame(frameUrl)) {
        throw new UntrustedSenderError(`Bridge call "${method}" from an untrusted frame: "${frameUrl}"`);
      }
      return core.dispatch(method satisfies BridgeMethod, rawArgs);
    });
  }
  return table;
}

/**
 * Registers the bridge on `ipcMain` and forwards the core's events to the web contents that
 * `eventTarget` returns (the main window's, or null while there is none). Returns an undo.
 */
export function registerBridge(
  ipcMain: Pick<IpcMain, "handle" | "removeHandler">,
  core: KeydeskCore,
  isTrustedFrame: (frameUrl: string) => boolean,
  eventTarget: () => WebContents | null,
): () => void {
  const table = bridgeHandlerTable(core, isTrustedFrame);
  for (const [channel, handler] of table) {
    ipcMain.handle(channel, (event: IpcMainInvokeEvent, rawArgs: unknown) =>
      handler(event.senderFrame?.url ?? "", rawArgs),
    );
  }
  const unsubscribe = core.onEvent((event: BridgeEvent) => {
    const target = eventTarget();
    if (target !== null && !target.isDestroyed()) {
      target.send(EVENT_CHANNEL, event);
    }
  });
  return () => {
    unsubscribe();
    for (const channel of table.keys()) {
      ipcMain.removeHandler(channel);
    }
  };
}
