import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { startKeydeskCore } from "../../../../../electron/main/core.ts";
import {
  type KeydeskCore,
  type NotifierPort,
  PAGE_CLIPBOARD,
} from "../../../../../electron/main/corePorts.ts";
import { MAX_NOTIFICATIONS_PER_CALL } from "../../../../../shared/bridge.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";
import { MemoryClipboard } from "../../../../harness/memoryClipboard.ts";
import { memoryKeychain } from "../../../../harness/memoryKeychain.ts";
import { fails, ok } from "../../dispatchAssertions.ts";

/**
 * The expiry-notification setting and notifications.show through the core: the desktop's notifier
 * (Electron's Notification behind the NotifierPort; the built bundle's test shows the real module
 * call on the stand-in electron) and the browser host, which has none and leaves them to the page.
 */

/** The desktop's system notifications as the core sees them: what was shown, and whether it can. */
function recordingNotifier(supported = true): NotifierPort & { shown: { title: string; body: string }[] } {
  const shown: { title: string; body: string }[] = [];
  return { shown, isSupported: () => supported, show: (item) => shown.push(item) };
}

const item = {
  title: "API key “billing” expires in 2 days",
  body: "owner on Local: it ends 1 Dec 2026, 10:00.",
};

describe("the desktop app (main shows the notifications)", () => {
  let dataDir: string;
  let core: KeydeskCore;
  const notifier = recordingNotifier();

  before(async () => {
    dataDir = await makeTempDir("keydesk-notify-");
    core = await startKeydeskCore({
      dataDir,
      vault: memoryKeychain(),
      clipboard: new MemoryClipboard(),
      defaultServicePort: 0,
      notifier,
    });
  });
  after(async () => {
    await core?.close();
    await removeDir(dataDir);
  });

  test("the setting is on by default, is kept in settings.json when turned off, and takes only a boolean", async () => {
    assert.equal((await ok(core, "settings.get")).expiryNotifications, true);
    const off = await ok(core, "settings.update", { expiryNotifications: false });
    assert.equal(off.expiryNotifications, false);
    assert.equal((await ok(core, "settings.get")).expiryNotifications, false);
    const stored = JSON.parse(await readFile(join(dataDir, "settings.json"), "utf8")) as Record<
      string,
      unknown
    >;
    assert.equal(stored.expiryNotifications, false);
    const refused = await fails(core, "settings.update", { expiryNotifications: "yes" });
    assert.equal(refused.messageId, "INVALID_ARGUMENT");
    assert.ok(refused.validationErrors?.expiryNotifications, JSON.stringify(refused));
    assert.equal((await ok(core, "settings.get")).expiryNotifications, false);
  });

  test("turned off, main shows nothing whatever the renderer asks; turned on, main shows each one", async () => {
    await ok(core, "settings.update", { expiryNotifications: false });
    assert.deepEqual(await ok(core, "notifications.show", { items: [item] }), { shownBy: "off" });
    assert.deepEqual(notifier.shown, []);
    await ok(core, "settings.update", { expiryNotifications: true });
    assert.deepEqual(await ok(core, "notifications.show", { items: [item, { ...item, title: "second" }] }), {
      shownBy: "main",
    });
    assert.deepEqual(notifier.shown, [item, { ...item, title: "second" }]);
  });

  test("notifications.show refuses what is not a short list of titles and bodies", async () => {
    const before = notifier.shown.length;
    for (const args of [
      { items: [] },
      { items: [{ title: "", body: "x" }] },
      { items: [{ title: "x".repeat(201), body: "x" }] },
      { items: [{ ...item, publicApiKey: "secret" }] },
      { items: Array.from({ length: MAX_NOTIFICATIONS_PER_CALL + 1 }, () => item) },
      { items: [item], extra: true },
    ]) {
      const refused = await fails(core, "notifications.show", args);
      assert.equal(refused.messageId, "INVALID_ARGUMENT", JSON.stringify(args));
    }
    assert.equal(notifier.shown.length, before, "nothing shown for a refused call");
  });
});

test("a desktop without notifications answers unsupported and shows nothing", async () => {
  const dataDir = await makeTempDir("keydesk-notify-unsupported-");
  const notifier = recordingNotifier(false);
  const core = await startKeydeskCore({
    dataDir,
    vault: memoryKeychain(),
    clipboard: new MemoryClipboard(),
    defaultServicePort: 0,
    notifier,
  });
  try {
    assert.deepEqual(await ok(core, "notifications.show", { items: [item] }), { shownBy: "unsupported" });
    assert.deepEqual(notifier.shown, []);
  } finally {
    await core.close();
    await removeDir(dataDir);
  }
});

test("the browser host (no notifier) leaves them to the page, unless they are off", async () => {
  const dataDir = await makeTempDir("keydesk-notify-page-");
  const core = await startKeydeskCore({
    dataDir,
    vault: memoryKeychain(),
    clipboard: PAGE_CLIPBOARD,
    defaultServicePort: 0,
  });
  try {
    assert.deepEqual(await ok(core, "notifications.show", { items: [item] }), { shownBy: "page" });
    await ok(core, "settings.update", { expiryNotifications: false });
    assert.deepEqual(await ok(core, "notifications.show", { items: [item] }), { shownBy: "off" });
  } finally {
    await core.close();
    await removeDir(dataDir);
  }
});
