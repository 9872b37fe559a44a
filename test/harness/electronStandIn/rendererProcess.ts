import { EventEmitter } from "node:events";

/**
 * The stand-in `electron` of a sandboxed preload: contextBridge and ipcRenderer, recording what
 * the preload exposes and every message it sends to main.
 */
export interface RendererStandIn {
  /** The module the preload's `require("electron")` gets. */
  electron: { contextBridge: ContextBridge; ipcRenderer: IpcRenderer };
  /** Each exposeInMainWorld call: the global name and the object given. */
  exposed: Array<{ name: string; api: unknown }>;
  /** Each ipcRenderer.invoke call, with every argument it got. */
  invoked: Array<{ channel: string; args: unknown[] }>;
  /** Each fire-and-forget message (send, sendSync, sendToHost, postMessage). */
  sent: Array<{ how: string; channel: string }>;
}

interface ContextBridge {
  exposeInMainWorld(name: string, api: unknown): void;
}

export type IpcRenderer = EventEmitter & {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  send(channel: string, ...args: unknown[]): void;
  sendSync(channel: string, ...args: unknown[]): unknown;
  sendToHost(channel: string, ...args: unknown[]): void;
  postMessage(channel: string, message: unknown): void;
};

/** What the stand-in main answers to `invoke(channel, ...)`: the channel, so a test can see it. */
export const answerTo = (channel: string) => ({ ok: true, value: { answeredOn: channel } });

export function rendererStandIn(): RendererStandIn {
  const exposed: RendererStandIn["exposed"] = [];
  const invoked: RendererStandIn["invoked"] = [];
  const sent: RendererStandIn["sent"] = [];
  const fireAndForget =
    (how: string) =>
    (channel: string): undefined => {
      sent.push({ how, channel });
    };
  const ipcRenderer: IpcRenderer = Object.assign(new EventEmitter(), {
    invoke(channel: string, ...args: unknown[]): Promise<unknown> {
      invoked.push({ channel, args });
      return Promise.resolve(answerTo(channel));
    },
    send: fireAndForget("send"),
    sendSync: fireAndForget("sendSync"),
    sendToHost: fireAndForget("sendToHost"),
    postMessage: fireAndForget("postMessage"),
  });
  const contextBridge: ContextBridge = {
    exposeInMainWorld(name, api) {
      // Electron refuses to replace a global that is already there.
      if (exposed.some((entry) => entry.name === name)) {
        throw new Error(`Cannot bind an API on top of an existing property on the window object: ${name}`);
      }
      exposed.push({ name, api });
    },
  };
  return { electron: { contextBridge, ipcRenderer }, exposed, invoked, sent };
}
