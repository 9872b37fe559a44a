// The contract between the preload bridge, the main process and the renderer.
// Temporary home: it moves to shared/ once the lead creates the bridge contract there.

/** IPC channel answering the application's version (`app.getVersion()`). */
export const APP_VERSION_CHANNEL = "app:version";

/** What the preload exposes to the renderer as `window.keydesk`. */
export type KeydeskBridge = {
  appVersion: () => Promise<string>;
};
