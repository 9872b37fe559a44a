import assert from "node:assert/strict";
import { join } from "node:path";
import { parseApiDateTime } from "../../shared/datetime.ts";
import { seriousViolations } from "../harness/axe.ts";
import { eventually } from "../harness/eventually.ts";
import { RESULTS } from "../harness/uiSession.ts";
import { uiSuite } from "../harness/uiSuite.ts";

/**
 * Expiry presets in the key forms and the expiry notifications, end to end in Debian's Chromium
 * through the browser host (where the page shows them with the Notification API). The page's
 * `Notification` is wrapped by an init script that records each one made and then makes the real
 * one (the context has the notifications permission). Run after `npm run -s build`.
 */

const DAY = 24 * 3600_000;
const MINUTE = 60_000;

interface Key {
  key: string;
  name: string;
  publicApiKey: string;
  validTo?: string;
}

const {
  test,
  session,
  page,
  host,
  bridge,
  row,
  before,
  problems: pageProblems,
} = uiSuite({
  name: "key-expiry",
  context: { viewport: { width: 1280, height: 800 }, permissions: ["notifications"] },
});

before(async () => {
  await session.context.addInitScript(() => {
    const Real = window.Notification;
    const shown: { title: string; body: string | undefined }[] = [];
    (window as unknown as { shownNotifications: typeof shown }).shownNotifications = shown;
    // The real API, called as the page calls it; each call recorded first.
    class Recording extends Real {
      constructor(title: string, options?: NotificationOptions) {
        shown.push({ title, body: options?.body });
        super(title, options);
      }
    }
    window.Notification = Recording;
  });
});

const shownNotifications = () =>
  page.evaluate(
    () =>
      (window as unknown as { shownNotifications: { title: string; body?: string }[] }).shownNotifications,
  );

/** Waits until the page has made `count` notifications since it loaded. */
async function notificationsShown(count: number): Promise<void> {
  await page.waitForFunction(
    (n) => (window as unknown as { shownNotifications: unknown[] }).shownNotifications.length >= n,
    count,
  );
}

async function openKeys(): Promise<void> {
  await page.goto(host.pageUrl);
  await page.getByRole("button", { name: "New key" }).waitFor();
}

async function shot(name: string, width: number): Promise<void> {
  await page.setViewportSize({ width, height: 800 });
  await page.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
  );
  await page.screenshot({ path: join(RESULTS, name) });
}

test("a key created with the 30-day preset ends in 30 days, said in the form and shown in the table", async () => {
  await openKeys();
  await page.getByRole("button", { name: "New key" }).click();
  const dialog = page.getByRole("dialog", { name: "New API key" });
  await dialog.getByLabel("Name").fill("thirty-day partner");
  await dialog.getByRole("checkbox", { name: "ALL (every API)" }).check();
  assert.equal(await dialog.getByRole("radio", { name: "No end" }).isChecked(), true, "a new key has no end");
  assert.equal(await dialog.getByTestId("key-form-ends").textContent(), "No end: the key never expires.");
  const before = Date.now();
  await dialog.getByText("30 days", { exact: true }).click();
  assert.equal(await dialog.getByRole("radio", { name: "30 days" }).isChecked(), true);
  const ends = (await dialog.getByTestId("key-form-ends").textContent()) ?? "";
  assert.match(ends, /^Ends .+ \(in 30 days\)$/, ends);
  // The picker holds the date the preset set, for the admin to adjust.
  const picked =
    (await dialog.getByRole("button", { name: "Valid to", exact: true }).textContent())?.trim() ?? "";
  assert.match(picked, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:00$/, picked);
  assert.deepEqual(await seriousViolations(page, '[role="dialog"]'), [], "the create dialog with a preset");
  await shot("key-expiry-create-30-days-1280.png", 1280);
  await shot("key-expiry-create-30-days-800.png", 800);
  // 800×600: the taller form scrolls, and its buttons can be reached.
  await page.setViewportSize({ width: 800, height: 600 });
  const create = dialog.getByRole("button", { name: "Create key" });
  await create.scrollIntoViewIfNeeded();
  const box = await create.boundingBox();
  assert.ok(
    box && box.y >= 0 && box.y + box.height <= 600,
    `Create key within the window: ${JSON.stringify(box)}`,
  );
  await page.screenshot({ path: join(RESULTS, "key-expiry-create-30-days-800x600.png") });
  await page.setViewportSize({ width: 1280, height: 800 });
  await dialog.getByRole("button", { name: "Create key" }).click();
  await page.getByRole("dialog", { name: "Key created" }).getByRole("button", { name: "Done" }).click();

  await row("thirty-day partner").getByTestId("key-valid-to").getByText("expires in 30 days").waitFor();
  const keys = await bridge<{ keys: Key[] }>("keys.page", {
    accountKey: "_",
    query: { nameContains: "thirty" },
  });
  const validTo = parseApiDateTime(keys.keys[0]?.validTo ?? "");
  assert.ok(validTo !== null, "the key has an end");
  // 30 days from the click, to the minute (the preset drops the seconds).
  assert.ok(validTo > before + 30 * DAY - MINUTE && validTo <= Date.now() + 30 * DAY, `${validTo - before}`);
  assert.deepEqual(await shownNotifications(), [], "a key ending in 30 days is not announced");
});

test("an edit opens with the key's end as Date…, and a preset changes only Valid to", async () => {
  const created = await bridge<Key>("keys.create", {
    accountKey: "_",
    request: {
      name: "renewed by preset",
      permissions: ["ALL", "TFA"],
      validTo: "2027-06-01T10:00:00.000+0000",
    },
  });
  await openKeys();
  await row("renewed by preset").getByRole("button", { name: "Edit renewed by preset" }).click();
  const dialog = page.getByRole("dialog", { name: "Edit “renewed by preset”" });
  await dialog.waitFor();
  assert.equal(await dialog.getByRole("radio", { name: "Date…" }).isChecked(), true);
  assert.match((await dialog.getByTestId("key-form-ends").textContent()) ?? "", /^Ends .*2027/);
  const before = Date.now();
  await dialog.getByText("60 days", { exact: true }).click();
  assert.match((await dialog.getByTestId("key-form-ends").textContent()) ?? "", /\(in 2 months\)$/);
  await shot("key-expiry-edit-60-days-800.png", 800);
  await page.setViewportSize({ width: 1280, height: 800 });
  await dialog.getByRole("button", { name: "Save changes" }).click();
  await page.getByText("Saved “renewed by preset”.").waitFor();
  const saved = await bridge<Key & { permissions: string[] }>("keys.get", {
    accountKey: "_",
    key: created.key,
  });
  const validTo = parseApiDateTime(saved.validTo ?? "") ?? 0;
  assert.ok(validTo > before + 60 * DAY - MINUTE && validTo <= Date.now() + 60 * DAY, `${validTo - before}`);
  assert.deepEqual(saved.permissions, ["ALL", "TFA"], "the other fields untouched");

  // Back to Date… with the preset's date, then No end: the form says so, and the save clears the end.
  await row("renewed by preset").getByRole("button", { name: "Edit renewed by preset" }).click();
  await dialog.getByText("No end", { exact: true }).click();
  assert.equal(await dialog.getByTestId("key-form-ends").textContent(), "No end: the key never expires.");
  assert.equal(
    (await dialog.getByRole("button", { name: "Valid to", exact: true }).textContent())?.trim(),
    "No end",
    "the picker is cleared",
  );
  await dialog.getByRole("button", { name: "Save changes" }).click();
  await dialog.waitFor({ state: "hidden" });
  await eventually("the end cleared", async () => {
    const cleared = await bridge<Key>("keys.get", { accountKey: "_", key: created.key });
    return cleared.validTo === undefined ? true : undefined;
  });
});

test("a key expiring in 2 days is announced once (a reload the same day does not repeat it), never with its publicApiKey", async () => {
  const soon = await bridge<Key>("keys.create", {
    accountKey: "_",
    request: {
      name: "expiring-billing",
      validTo: new Date(Date.now() + 2 * DAY).toISOString().replace("Z", "+0000"),
    },
  });
  await openKeys();
  await notificationsShown(1);
  const [notice] = await shownNotifications();
  assert.equal(notice?.title, "API key “expiring-billing” expires in 2 days");
  assert.match(notice?.body ?? "", /^owner on Local: it ends /);
  assert.ok(!JSON.stringify(notice).includes(soon.publicApiKey), "no publicApiKey in a notification");

  // Reloaded: the announced key is not repeated; a key that came into the window since is.
  await bridge<Key>("keys.create", {
    accountKey: "_",
    request: {
      name: "expiring-search",
      validTo: new Date(Date.now() + 3 * DAY).toISOString().replace("Z", "+0000"),
    },
  });
  await openKeys();
  await notificationsShown(1);
  await row("expiring-search").waitFor();
  assert.deepEqual(
    (await shownNotifications()).map((shown) => shown.title),
    ["API key “expiring-search” expires in 3 days"],
    "expiring-billing was announced today already",
  );
  assert.deepEqual(pageProblems, []);
});

test("turned off in Settings, nothing is announced; turned on again, the keys not announced yet are", async () => {
  await openKeys();
  await page.getByRole("navigation", { name: "Views" }).getByRole("tab", { name: "Settings" }).click();
  const toggle = page.getByRole("switch", { name: "Notify me of keys expiring within 7 days" });
  assert.equal(await toggle.isChecked(), true, "on by default");
  await page.getByTestId("notification-settings").locator(".mantine-Switch-track").click();
  await eventually("the setting saved off", async () =>
    (await bridge<{ expiryNotifications: boolean }>("settings.get")).expiryNotifications ? undefined : true,
  );
  await shot("key-expiry-settings-off-800.png", 800);
  await page.setViewportSize({ width: 1280, height: 800 });

  await bridge<Key>("keys.create", {
    accountKey: "_",
    request: {
      name: "expiring-while-off",
      validTo: new Date(Date.now() + DAY).toISOString().replace("Z", "+0000"),
    },
  });
  await openKeys();
  await row("expiring-while-off").waitFor();
  assert.deepEqual(await shownNotifications(), [], "off: nothing announced");
  const record = await page.evaluate(() => localStorage.getItem("keydesk.expiryNotified") ?? "");
  assert.equal(Object.keys(JSON.parse(record) as object).length, 2, "only the two keys announced before");

  await page.getByRole("navigation", { name: "Views" }).getByRole("tab", { name: "Settings" }).click();
  await page.getByTestId("notification-settings").locator(".mantine-Switch-track").click();
  await notificationsShown(1);
  assert.deepEqual(
    (await shownNotifications()).map((shown) => shown.title),
    ["API key “expiring-while-off” expires in 1 day"],
  );
  assert.equal(
    await page.getByText("This browser has not been allowed").count(),
    0,
    "the permission is granted",
  );
  assert.deepEqual(pageProblems, []);
});
