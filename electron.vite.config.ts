import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "electron-vite";

const projectRoot = fileURLToPath(new URL(".", import.meta.url));
const fromRoot = (...parts: string[]): string => resolve(projectRoot, ...parts);

// Native Node-API modules: loaded from node_modules at run time (unpacked from the asar), never bundled.
const nativeModules = ["better-sqlite3", "keytar", "sodium-native"];

export default defineConfig({
  main: {
    build: {
      outDir: fromRoot("out/main"),
      // Every package.json dependency stays external (electron-vite's default); the native modules
      // are listed explicitly so they stay external even if they move out of "dependencies".
      externalizeDeps: { include: nativeModules },
      rolldownOptions: {
        // The key list worker runs as a worker thread of the embedded service: an entry of its own.
        input: {
          index: fromRoot("electron/main/index.ts"),
          keyListWorker: fromRoot("electron/service/keyListWorker.ts"),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: fromRoot("out/preload"),
      rolldownOptions: {
        input: { index: fromRoot("electron/preload/index.ts") },
        // A sandboxed preload cannot be an ES module: emit CommonJS, named .cjs because the package is "type": "module".
        output: { format: "cjs", entryFileNames: "[name].cjs" },
      },
    },
  },
  renderer: {
    root: fromRoot("renderer"),
    plugins: [react()],
    build: {
      outDir: fromRoot("out/renderer"),
      emptyOutDir: true,
      rolldownOptions: {
        input: { index: fromRoot("renderer/index.html") },
      },
    },
  },
});
