import type { KeydeskBridge } from "../../shared/bridge.ts";

declare global {
  interface Window {
    /** The typed bridge exposed by the preload (electron/preload/index.ts); absent in a plain browser. */
    readonly keydesk?: KeydeskBridge;
  }
}
