// Loaded with `node --import` before the built main bundle: maps the `electron` specifier to the
// stand-in (Node 24's synchronous module hooks cover import and require alike), then opens the
// control channel to the test.

import { registerHooks } from "node:module";
import { isMainThread } from "node:worker_threads";
import { startControlChannel } from "./control.ts";

const standIn = new URL("./electron.ts", import.meta.url).href;

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === "electron" || specifier === "electron/main") {
      return { url: standIn, shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
});

// Worker threads of the main process (the key list worker) inherit `--import` but are no
// Electron main process: only the main thread talks to the test.
if (isMainThread) startControlChannel();
