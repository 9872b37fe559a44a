import type { KeydeskBridge } from "../../electron/preload/bridge-contract.ts";

declare global {
  interface Window {
    /** The typed bridge exposed by the preload (electron/preload/index.ts). */
    readonly keydesk: KeydeskBridge;
  }
}
