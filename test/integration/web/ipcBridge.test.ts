import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startKeydeskCore } from "../../../electron/main/core.ts";
import type { KeydeskCore } from "../../../electron/main/corePorts.ts";
import { bridgeHandlerTable, registerBridge, UntrustedSenderError } from "../../../electron/main/ipc.ts";
import { isTrustedSender } from "../../../electron/main/security.ts";
import { SessionVault } from "../../../electron/vault/sessionVault.ts";
import type { BridgeEvent, BridgeResult, ServiceStatusDto } from "../../../shared/bridge.ts";
import { bridgeArgumentSchemas } from "../../../shared/bridge.ts";
import { BRIDGE_METHODS, channelOf, EVENT_CHANNEL } from "../../../shared/bridgeMethods.ts";
import { makeTempDir, removeDir } from "../../harness/keyServiceProcess.ts";
import { MemoryClipboard } from "../../harness/memoryClipboard.ts";

// The Electron IPC wiring (electron/main/ipc.ts) over the real core on a temp data dir. Only
// Electron's ipcMain and webContents are stand-ins (no Electron runtime here); the core is real.

const APP_PAGE = "file:///opt/Keydesk/resources/app.asar/out/renderer/index.html";
const APP_ORIGIN = APP_PAGE;
const trusted = (frameUrl: string) => isTrustedSender(frameUrl, APP_ORIGIN);

describe("bridge over IPC", () => {
  let dataDir: string;
  let core: KeydeskCore;

  before(async () => {
    dataDir = await makeTempDir("keydesk-ipc-");
    core = await startKeydeskCore({
      dataDir,
      vault: new SessionVault("test: no keychain"),
      clipboard: new MemoryClipboard(),
      defaultServicePort: 0,
    });
  });

  after(async () => {
    await core?.close();
    await removeDir(dataDir);
  });

  it("has the contract's methods, in one zod-free list that matches the argument schemas", () => {
    assert.deepEqual(BRIDGE_METHODS, Object.keys(bridgeArgumentSchemas));
  });

  it("builds one handler per method, on its own channel, and nothing else", () => {
    const table = bridgeHandlerTable(core, trusted);
    assert.deepEqual([...table.keys()], BRIDGE_METHODS.map(channelOf));
    assert.ok(![...table.keys()].includes(EVENT_CHANNEL));
  });

  it("passes a call from the app's page to the core and returns its result", async () => {
    const table = bridgeHandlerTable(core, trusted);
    const handler = table.get(channelOf("service.status"));
    assert.ok(handler);
    const result = (await handler(APP_PAGE, undefined)) as BridgeResult<ServiceStatusDto>;
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.value.running, true);
    assert.equal(result.value.activeProfileId, "local");
  });

  it("returns the core's typed error for an invalid argument", async () => {
    const handler = bridgeHandlerTable(core, trusted).get(channelOf("keys.get"));
    const result = await handler?.(APP_PAGE, { key: "no/pe" });
    assert.equal(result?.ok, false);
    assert.equal(result?.ok === false && result.error.messageId, "INVALID_ARGUMENT");
  });

  it("refuses calls from any other frame before the core sees them", async () => {
    const seen: string[] = [];
    const countingCore = {
      dispatch: (method: string, args: unknown) => {
        seen.push(method);
        return core.dispatch(method, args);
      },
    };
    const handler = bridgeHandlerTable(countingCore, trusted).get(
      channelOf("profiles.revealLocalCredentials"),
    );
    assert.ok(handler);
    for (const frame of [
      "https://evil.example/",
      "about:blank",
      "",
      "file:///tmp/other.html",
      `${APP_PAGE}x`,
    ]) {
      await assert.rejects(handler(frame, undefined), UntrustedSenderError, `accepted ${frame}`);
    }
    assert.deepEqual(seen, []);
    await handler(APP_PAGE, undefined);
    assert.deepEqual(seen, ["profiles.revealLocalCredentials"]);
  });

  it("registers every channel on ipcMain, forwards core events to the window, and undoes it all", async () => {
    const handlers = new Map<string, (event: unknown, args: unknown) => Promise<unknown>>();
    const ipcMain = {
      handle: (channel: string, listener: (event: unknown, args: unknown) => Promise<unknown>) => {
        assert.ok(!handlers.has(channel), `${channel} registered twice`);
        handlers.set(channel, listener);
      },
      removeHandler: (channel: string) => {
        handlers.delete(channel);
      },
    };
    const sent: Array<[string, BridgeEvent]> = [];
    const webContents = {
      isDestroyed: () => false,
      send: (channel: string, event: BridgeEvent) => sent.push([channel, event]),
    };
    const undo = registerBridge(ipcMain as never, core, trusted, () => webContents as never);
    assert.deepEqual([...handlers.keys()].sort(), BRIDGE_METHODS.map(channelOf).sort());

    const activate = handlers.get(channelOf("profiles.activate"));
    const result = (await activate?.(
      { senderFrame: { url: APP_PAGE } },
      { id: "local" },
    )) as BridgeResult<unknown>;
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual(sent, [[EVENT_CHANNEL, { type: "profile-changed", activeProfileId: "local" }]]);
    await assert.rejects(
      activate?.({ senderFrame: null }, { id: "local" }) ?? Promise.resolve(),
      UntrustedSenderError,
    );

    undo();
    assert.equal(handlers.size, 0);
    await core.dispatch("profiles.activate", { id: "local" });
    assert.equal(sent.length, 1, "no event is forwarded after undo");
  });
});
