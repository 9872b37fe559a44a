import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, describe, it } from "node:test";
import { type BridgeMethod, bridgeArgumentSchemas } from "../../../shared/bridge.ts";
import { channelOf, EVENT_CHANNEL } from "../../../shared/bridgeMethods.ts";
import { assertBuilt, BUILT } from "../../harness/builtApp.ts";
import {
  answerTo,
  type RendererStandIn,
  rendererStandIn,
} from "../../harness/electronStandIn/rendererProcess.ts";
import { runSandboxedPreload } from "../../harness/electronStandIn/sandboxedPreload.ts";

// The BUILT preload (out/preload/index.cjs, as electron-vite bundled it), run as Electron runs a
// sandboxed preload: its own global scope, and a require() that gives `electron` (a stand-in
// recording contextBridge and ipcRenderer) and a few built-ins only. It must expose the bridge
// contract of shared/ and nothing more: one function per method on its own channel.

/** The global the renderer reads the bridge from: its Window declaration (renderer/src/global.d.ts). */
function rendererGlobalName(): string {
  const declaration = readFileSync(new URL("../../../renderer/src/global.d.ts", import.meta.url), "utf8");
  const match = /readonly\s+(\w+)\??:\s*KeydeskBridge\b/.exec(declaration);
  assert.ok(match, "renderer/src/global.d.ts declares the bridge's global");
  return match[1] as string;
}

type ExposedBridge = Record<string, (...args: unknown[]) => unknown>;

/** The contract's methods: the argument schemas of shared/bridge.ts. */
const CONTRACT = Object.keys(bridgeArgumentSchemas) as BridgeMethod[];

describe("the built preload (out/preload/index.cjs) in a sandboxed renderer", () => {
  let standIn: RendererStandIn;
  let required: string[];
  let bridge: ExposedBridge;

  before(() => {
    assertBuilt(BUILT.preload);
    standIn = rendererStandIn();
    ({ required } = runSandboxedPreload(BUILT.preload, standIn.electron));
    bridge = standIn.exposed[0]?.api as ExposedBridge;
  });

  it("loads with the sandbox's require, taking electron's contextBridge and ipcRenderer from it", () => {
    assert.ok(required.includes("electron"), `required: ${required.join(", ")}`);
  });

  it("exposes one object, under the global the renderer reads", () => {
    assert.deepEqual(
      standIn.exposed.map((entry) => entry.name),
      [rendererGlobalName()],
    );
  });

  it("exposes exactly the contract's methods and onEvent, all functions, none of them ipcRenderer's", () => {
    assert.deepEqual(Object.keys(bridge).sort(), [...CONTRACT, "onEvent"].sort());
    const { ipcRenderer } = standIn.electron;
    const rawOnes = new Set<unknown>([
      ipcRenderer,
      ...Object.values(ipcRenderer),
      ipcRenderer.on,
      ipcRenderer.emit,
    ]);
    for (const [name, value] of Object.entries(bridge)) {
      assert.equal(typeof value, "function", name);
      assert.ok(!rawOnes.has(value), `${name} is ipcRenderer's own`);
    }
  });

  it("sends each method on its own channel with the caller's argument, and answers main's result", async () => {
    for (const method of CONTRACT) {
      const args = { probe: method, nested: { list: [1, 2] } };
      const before = standIn.invoked.length;
      // Extra arguments (say, a channel name) must not reach main: only the one argument does.
      const answer = await bridge[method]?.(args, "keydesk:profiles.revealLocalCredentials", 42);
      assert.deepEqual(standIn.invoked.slice(before), [{ channel: channelOf(method), args: [args] }], method);
      assert.equal(standIn.invoked.at(-1)?.args[0], args, `${method} passes the argument through`);
      assert.deepEqual(answer, answerTo(channelOf(method)), method);
    }
    await bridge["service.status"]?.();
    assert.deepEqual(standIn.invoked.at(-1), { channel: channelOf("service.status"), args: [undefined] });
    assert.deepEqual(standIn.sent, [], "nothing goes to main but invoke");
  });

  it("hands main's events to onEvent listeners without Electron's event object, until unsubscribed", () => {
    const { ipcRenderer } = standIn.electron;
    const received: unknown[][] = [];
    const unsubscribe = bridge.onEvent?.((...args: unknown[]) => received.push(args)) as () => void;
    assert.equal(ipcRenderer.listenerCount(EVENT_CHANNEL), 1);
    // Electron's IpcRendererEvent carries `sender` (ipcRenderer itself): it must not reach the page.
    const electronEvent = { sender: ipcRenderer, senderId: 0, ports: [] };
    const payload = { type: "profile-changed", activeProfileId: "local" };
    ipcRenderer.emit(EVENT_CHANNEL, electronEvent, payload);
    ipcRenderer.emit(channelOf("service.status"), electronEvent, { type: "not an event" });
    assert.deepEqual(received, [[payload]]);
    unsubscribe();
    assert.equal(ipcRenderer.listenerCount(EVENT_CHANNEL), 0);
    ipcRenderer.emit(EVENT_CHANNEL, electronEvent, payload);
    assert.equal(received.length, 1);
  });
});
