import events from "node:events";
import { readFileSync } from "node:fs";
import timers from "node:timers";
import url from "node:url";
import vm from "node:vm";

/**
 * Runs a CommonJS preload the way Electron runs it in a sandboxed renderer: in its own global
 * scope (a vm context), with Electron's polyfilled `require`, which gives `electron` and the
 * Node built-ins events, timers and url, and nothing else (no fs, no packages, no other files:
 * a preload that needs them fails to load in the real app, so it fails here too).
 */
export function runSandboxedPreload(file: string, electron: object): { required: string[] } {
  const required: string[] = [];
  const builtins: Record<string, unknown> = { events, timers, url };
  const sandboxRequire = (name: string): unknown => {
    required.push(name);
    if (name === "electron") return electron;
    if (Object.hasOwn(builtins, name)) return builtins[name];
    throw new Error(`module not found: ${name}`);
  };
  // The globals Electron gives a sandboxed preload besides the page's own (the docs' list).
  const context = vm.createContext({
    console,
    Buffer,
    setImmediate,
    clearImmediate,
    process: { platform: process.platform, type: "renderer", env: {} },
  });
  const source = readFileSync(file, "utf8");
  const wrapper = vm.runInContext(`(function (exports, require, module) {${source}\n})`, context, {
    filename: file,
  }) as (exports: object, require: (name: string) => unknown, module: { exports: object }) => void;
  const module = { exports: {} };
  wrapper.call(module.exports, module.exports, sandboxRequire, module);
  return { required };
}
