import { contextBridge, ipcRenderer } from "electron";
import { APP_VERSION_CHANNEL, type KeydeskBridge } from "./bridge-contract.ts";

// Expose narrow functions only: never ipcRenderer itself, nor a generic invoke(channel, ...).
const bridge: KeydeskBridge = {
  appVersion: () => ipcRenderer.invoke(APP_VERSION_CHANNEL) as Promise<string>,
};

contextBridge.exposeInMainWorld("keydesk", bridge);
