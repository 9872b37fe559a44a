import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { connect } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { CONTENT_SECURITY_POLICY } from "../../../electron/main/security.ts";
import { DATABASE_FILE } from "../../../electron/service/dataDir.ts";
import {
  type BridgeMethod,
  type BridgeResult,
  type BridgeResults,
  bridgeArgumentSchemas,
} from "../../../shared/bridge.ts";
import { channelOf, EVENT_CHANNEL } from "../../../shared/bridgeMethods.ts";
import { assertBuilt, BUILT } from "../../harness/builtApp.ts";
import {
  type MainBundle,
  startMainBundle,
  windowOpened,
} from "../../harness/electronStandIn/mainBundleProcess.ts";
import { STAND_IN_ENV, type StandInSnapshot } from "../../harness/electronStandIn/protocol.ts";
import { eventually } from "../../harness/eventually.ts";
import { basic, makeTempDir, REPO_ROOT, removeDir, request } from "../../harness/keyServiceProcess.ts";

// The BUILT main process (out/main/index.js, as electron-vite bundled it) started in Node 24 on a
// stand-in `electron` (test/harness/electronStandIn/): no Electron binary can run here, and this
// catches what typecheck cannot: an import that does not resolve once bundled, a channel that
// does not match the contract, a window option lost, a handler that trusts any frame, a quit that
// leaves the service running. The core, the key service, SQLite and HTTP are real.

/**
 * The OS keychain stays out of these runs: on Linux an unreachable D-Bus makes the app fall back
 * to its session vault (as it does on a machine without a Secret Service), so the tests never
 * read or write the user's real keychain.
 */
const NO_KEYCHAIN = { DBUS_SESSION_BUS_ADDRESS: "unix:path=/nonexistent/keydesk-built-app-test" };

/** A bridge call as the app's page makes it (preload: invoke(channel, args)); must succeed. */
async function bridgeOk<M extends BridgeMethod>(
  app: MainBundle,
  method: M,
  args?: unknown,
): Promise<BridgeResults[M]> {
  const outcome = await app.invoke(channelOf(method), [args]);
  assert.ok(outcome.resolved, `${method} was refused: ${JSON.stringify(outcome)}`);
  const result = outcome.value as BridgeResult<BridgeResults[M]>;
  assert.ok(result.ok, `${method} failed: ${JSON.stringify(result)}`);
  return result.value;
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolveAnswer) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolveAnswer(true);
    });
    socket.once("error", () => resolveAnswer(false));
  });
}

/** The app's stderr, less the session-vault notice that NO_KEYCHAIN causes on purpose. */
function unexpectedStderr(app: MainBundle): string[] {
  return app
    .stderr()
    .split("\n")
    .filter(
      (line) =>
        line !== "" &&
        !line.startsWith(
          "keydesk: no OS keychain, so remote profiles' passwords are kept for this session only:",
        ),
    );
}

describe("the built main process (out/main/index.js) on a stand-in Electron", () => {
  let dataDir: string;
  let home: string;
  let app: MainBundle;
  let started: StandInSnapshot;
  const pageUrl = pathToFileURL(BUILT.renderer).href;

  before(async () => {
    assertBuilt(BUILT.main, BUILT.preload, BUILT.renderer);
    dataDir = await makeTempDir("keydesk-built-main-");
    home = await makeTempDir("keydesk-built-home-");
    app = startMainBundle({ dataDir, home, env: NO_KEYCHAIN });
    started = await windowOpened(app);
  });

  after(async () => {
    app?.kill();
    if (dataDir) await removeDir(dataDir);
    if (home) await removeDir(home);
  });

  it("sandboxes every renderer before the app is ready, and holds the single-instance lock", () => {
    const { log } = started;
    assert.ok(log.includes("app.enableSandbox"), log.join("\n"));
    assert.ok(log.indexOf("app.enableSandbox") < log.indexOf("event ready"), "enableSandbox after ready");
    assert.ok(log.includes("app.requestSingleInstanceLock"));
  });

  it("registers exactly the contract's channels, and no fire-and-forget listener", () => {
    // The contract is the argument schemas of shared/bridge.ts: one channel per method.
    const contract = Object.keys(bridgeArgumentSchemas).map((method) => channelOf(method as BridgeMethod));
    assert.deepEqual([...started.handledChannels].sort(), contract.sort());
    assert.deepEqual(started.ipcMainListeners, []);
  });

  it("starts the embedded key service in KEYDESK_DATA_DIR: its port answers over HTTP", async () => {
    const status = await bridgeOk(app, "service.status");
    assert.equal(status.running, true);
    assert.equal(status.baseUrl, `http://127.0.0.1:${status.port}`);
    const local = await bridgeOk(app, "profiles.revealLocalCredentials");
    // A key made through the bridge is in the service that other programs call over HTTP.
    const created = await bridgeOk(app, "keys.create", { request: { name: "built main key" } });
    const listed = await request(local.baseUrl, {
      path: "/settings/1/accounts/_/api-keys",
      authorization: basic(local.username, local.password),
    });
    assert.equal(listed.status, 200, listed.text);
    const { apiKeys } = listed.json as { apiKeys: Array<{ key: string; publicApiKey: string }> };
    assert.deepEqual(
      apiKeys.filter((key) => key.key === created.key).map((key) => key.publicApiKey),
      [created.publicApiKey],
    );
    assert.ok(existsSync(join(dataDir, "settings.json")), "settings.json is in KEYDESK_DATA_DIR");
    assert.deepEqual(readdirSync(home), [], "nothing was written under app.getPath()");
  });

  it("loads keytar from the bundle (only the missing Secret Service makes it session-only)", async (t) => {
    try {
      createRequire(join(REPO_ROOT, "package.json")).resolve("keytar");
    } catch {
      t.skip("keytar (an optional dependency) is not installed");
      return;
    }
    if (process.platform !== "linux") {
      t.skip("the keychain is kept out of the run through D-Bus, which only Linux uses");
      return;
    }
    const status = await bridgeOk(app, "service.status");
    assert.equal(status.keychain, "session-only");
    assert.doesNotMatch(status.keychainUnavailableReason ?? "", /could not be loaded/);
    assert.match(status.keychainUnavailableReason ?? "", /D-Bus/);
  });

  it("opens one window, hardened, on the built page with the built preload", async () => {
    assert.equal(started.windows.length, 1);
    const [window] = started.windows;
    assert.ok(window);
    const preferences = (window.options as { webPreferences?: Record<string, unknown> }).webPreferences ?? {};
    assert.equal(preferences.contextIsolation, true);
    assert.equal(preferences.sandbox, true);
    assert.equal(preferences.nodeIntegration, false);
    assert.notEqual(preferences.nodeIntegrationInWorker, true);
    assert.notEqual(preferences.webSecurity, false);
    assert.notEqual(preferences.allowRunningInsecureContent, true);
    assert.notEqual(preferences.webviewTag, true);
    assert.equal(preferences.preload, BUILT.preload);
    assert.deepEqual(window.loaded, [pageUrl]);
    // The window is created hidden and shown once its page is ready: it must not stay hidden.
    const { windows } = await app.snapshot();
    assert.equal(windows[0]?.shown, true);
  });

  it("keeps the window on its page: navigation away, redirects, sub-frames, window.open and <webview> are refused", async () => {
    const navigate = (event: "will-navigate" | "will-redirect" | "will-frame-navigate", url: string) =>
      app.request({ op: "navigate", event, url });
    assert.deepEqual(await navigate("will-navigate", `${pageUrl}#/keys`), { prevented: false });
    for (const url of ["https://evil.example/", "file:///etc/passwd", "javascript:alert(1)"]) {
      assert.deepEqual(await navigate("will-navigate", url), { prevented: true }, url);
    }
    assert.deepEqual(await navigate("will-redirect", "https://evil.example/"), { prevented: true });
    // Every frame's navigations: the main frame stays on its page, and no sub-frame loads anything.
    assert.deepEqual(await navigate("will-frame-navigate", `${pageUrl}#/keys`), { prevented: false });
    assert.deepEqual(await navigate("will-frame-navigate", "https://evil.example/"), { prevented: true });
    assert.deepEqual(
      await app.request({ op: "navigate", event: "will-frame-navigate", url: pageUrl, isMainFrame: false }),
      { prevented: true },
      "a sub-frame showing even the app's own page",
    );
    assert.deepEqual(await app.request({ op: "openWindow", url: "https://evil.example/" }), {
      handled: true,
      answer: { action: "deny" },
    });
    assert.deepEqual(await app.request({ op: "attachWebview", src: "https://evil.example/" }), {
      prevented: true,
    });
  });

  it("denies every permission request and check, and sends its CSP with every response", async () => {
    for (const permission of ["media", "geolocation", "notifications", "clipboard-read", "openExternal"]) {
      assert.deepEqual(
        await app.request({ op: "requestPermission", permission, requestingUrl: pageUrl }),
        { handled: true, granted: false },
        permission,
      );
      assert.deepEqual(
        await app.request({ op: "checkPermission", permission, requestingOrigin: "file:///" }),
        { handled: true, granted: false },
        permission,
      );
    }
    assert.equal(started.windows[0]?.session.hasDevicePermissionHandler, true);
    const answered = (await app.request({
      op: "responseHeaders",
      url: pageUrl,
      responseHeaders: { "Content-Type": ["text/html"] },
    })) as { handled: boolean; response: { responseHeaders: Record<string, string[]> } };
    assert.equal(answered.handled, true);
    assert.deepEqual(answered.response.responseHeaders, {
      "Content-Type": ["text/html"],
      "Content-Security-Policy": [CONTENT_SECURITY_POLICY],
    });
  });

  it("refuses a bridge call from any frame but the app's page", async () => {
    const { password } = await bridgeOk(app, "profiles.revealLocalCredentials");
    for (const frame of [{ url: "https://evil.example/" }, { url: `${pageUrl}.evil.html` }, null]) {
      const outcome = await app.invoke(channelOf("profiles.revealLocalCredentials"), [undefined], frame);
      assert.equal(outcome.resolved, false, JSON.stringify(frame));
      assert.match(outcome.resolved ? "" : outcome.message, /untrusted frame/);
      assert.ok(!JSON.stringify(outcome).includes(password), "the refusal carries no secret");
    }
  });

  it("copies a publicApiKey to the clipboard in main; the answer to the page does not carry it", async () => {
    const created = await bridgeOk(app, "keys.create", { request: { name: "copied key" } });
    const copied = await bridgeOk(app, "clipboard.copyPublicApiKey", { key: created.key });
    assert.equal(copied.writtenBy, "main");
    assert.ok(!JSON.stringify(copied).includes(created.publicApiKey), JSON.stringify(copied));
    const { clipboardWrites } = await app.snapshot();
    assert.equal(clipboardWrites.at(-1), created.publicApiKey);
  });

  it("shows expiry notifications with Electron's Notification in main, none once they are turned off", async () => {
    const item = { title: "API key “billing” expires in 2 days", body: "owner on Local: it ends soon." };
    assert.deepEqual(await bridgeOk(app, "notifications.show", { items: [item] }), { shownBy: "main" });
    assert.deepEqual((await app.snapshot()).notificationsShown, [item]);
    await bridgeOk(app, "settings.update", { expiryNotifications: false });
    assert.deepEqual(await bridgeOk(app, "notifications.show", { items: [item] }), { shownBy: "off" });
    assert.deepEqual((await app.snapshot()).notificationsShown, [item], "nothing more shown");
    await bridgeOk(app, "settings.update", { expiryNotifications: true });
  });

  it("pushes the core's events to the window on the event channel", async () => {
    await bridgeOk(app, "profiles.activate", { id: "local" });
    const { sentToRenderer } = await app.snapshot();
    assert.deepEqual(sentToRenderer.at(-1), {
      channel: EVENT_CHANNEL,
      args: [{ type: "profile-changed", activeProfileId: "local" }],
    });
  });

  // Last: it ends the app.
  it("quits cleanly when its window is closed: service stopped and database closed before the end", async () => {
    const { port } = await bridgeOk(app, "service.status");
    const wal = join(dataDir, "service", `${DATABASE_FILE}-wal`);
    assert.equal(await accepts(port as number), true);
    assert.ok(existsSync(wal), "the database is open (in WAL mode) while the app runs");

    await app.request({ op: "closeWindow" });
    const quit = await app.quitted();
    assert.equal(quit.exitCode, 0);
    // Now real Electron would end the process: everything must already be stopped.
    assert.equal(await accepts(port as number), false, "the service still accepts connections");
    assert.ok(!existsSync(wal), "the database was not closed (its -wal file is still there)");
    const { log } = await app.snapshot();
    const ending = log.slice(log.indexOf("event window-all-closed"));
    assert.deepEqual(
      ending.filter((entry) => entry.startsWith("event ")),
      ["event window-all-closed", "event before-quit", "event before-quit", "event will-quit", "event quit"],
    );

    assert.deepEqual(await app.exit(), { code: 0, signal: null });
    assert.deepEqual(unexpectedStderr(app), []);
  });
});

describe("the built main process when another Keydesk already runs", () => {
  it("leaves at once: no service, no bridge, no window", async (t) => {
    assertBuilt(BUILT.main);
    const dataDir = await makeTempDir("keydesk-built-second-");
    const home = await makeTempDir("keydesk-built-home-");
    const app = startMainBundle({
      dataDir,
      home,
      env: { ...NO_KEYCHAIN, [STAND_IN_ENV.instanceLock]: "taken" },
    });
    t.after(async () => {
      app.kill();
      await removeDir(dataDir);
      await removeDir(home);
    });
    assert.equal((await app.quitted()).exitCode, 0);
    const state = await app.snapshot();
    assert.ok(state.log.includes("app.quit"), state.log.join("\n"));
    assert.deepEqual(state.handledChannels, []);
    assert.deepEqual(state.windows, []);
    assert.deepEqual(readdirSync(dataDir), [], "the second instance touched the data folder");
    assert.deepEqual(await app.exit(), { code: 0, signal: null });
  });
});

describe("the built main process when it cannot start", () => {
  it("says why on stderr and exits 1 without opening a window", async (t) => {
    assertBuilt(BUILT.main);
    const parent = await makeTempDir("keydesk-built-broken-");
    const home = await makeTempDir("keydesk-built-home-");
    t.after(async () => {
      await removeDir(parent);
      await removeDir(home);
    });
    // The data folder's path goes through a regular file: the settings cannot be written.
    await writeFile(join(parent, "file"), "");
    const app = startMainBundle({ dataDir: join(parent, "file", "data"), home, env: NO_KEYCHAIN });
    t.after(() => app.kill());
    assert.equal((await app.quitted()).exitCode, 1);
    const state = await app.snapshot();
    assert.deepEqual(state.windows, []);
    assert.deepEqual(await app.exit(), { code: 1, signal: null });
    assert.match(app.stderr(), /keydesk: failed to start:.*ENOTDIR/);
  });
});

describe("the built main process when its window's page does not load", () => {
  // Electron rejects loadURL's promise when a load fails or is cut short (ERR_ABORTED: a quit, or
  // a navigation the app refuses, during the load); unhandled, that is an uncaught main-process error.
  it("says so on stderr and keeps running, then quits cleanly from its Quit command", async (t) => {
    assertBuilt(BUILT.main);
    const dataDir = await makeTempDir("keydesk-built-noload-");
    const home = await makeTempDir("keydesk-built-home-");
    const app = startMainBundle({
      dataDir,
      home,
      env: { ...NO_KEYCHAIN, [STAND_IN_ENV.failLoads]: "ERR_ABORTED" },
    });
    t.after(async () => {
      app.kill();
      await removeDir(dataDir);
      await removeDir(home);
    });
    await windowOpened(app);
    // The app still runs: its service answers (on the port it remembers in settings.json).
    const { rememberedPort } = JSON.parse(await readFile(join(dataDir, "settings.json"), "utf8"));
    assert.equal(await accepts(rememberedPort), true);
    await eventually("the load failure on stderr", async () =>
      /keydesk: the window could not load its page:.*ERR_ABORTED/.test(app.stderr()) ? true : undefined,
    );
    // Quit with the window open (the other test closes the window): the same clean stop.
    await app.request({ op: "quitApp" });
    assert.equal((await app.quitted()).exitCode, 0);
    assert.equal(await accepts(rememberedPort), false);
    assert.deepEqual(await app.exit(), { code: 0, signal: null });
  });
});
