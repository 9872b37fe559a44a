import { contextBridge, type IpcRendererEvent, ipcRenderer } from "electron";
import type { BridgeEvent, BridgeResult } from "../../shared/bridge.ts";
// The zod-free half of the contract only: a sandboxed preload can require nothing but `electron`.
import { buildKeydeskBridge, channelOf, EVENT_CHANNEL } from "../../shared/bridgeMethods.ts";

// Exactly the contract's functions: one per bridge method, each on its own channel, plus
// onEvent. Never ipcRenderer itself, nor a generic invoke(channel, ...).
const bridge = buildKeydeskBridge({
  call: (method, args) => ipcRenderer.invoke(channelOf(method), args) as Promise<BridgeResult<unknown>>,
  subscribe: (listener) => {
    const onMessage = (_event: IpcRendererEvent, payload: BridgeEvent): void => listener(payload);
    ipcRenderer.on(EVENT_CHANNEL, onMessage);
    return () => {
      ipcRenderer.removeListener(EVENT_CHANNEL, onMessage);
    };
  },
});

contextBridge.exposeInMainWorld("keydesk", bridge);
