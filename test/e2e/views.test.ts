import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { seriousViolations } from "../harness/axe.ts";
import { type SeededConsole, seedConsole } from "../harness/consoleSeed.ts";
import { lowContrastTexts } from "../harness/contrast.ts";
import { eventually } from "../harness/eventually.ts";
import {
  addAccount,
  makeTempDir,
  REPO_ROOT,
  removeDir,
  type ServeProcess,
  startServe,
} from "../harness/keyServiceProcess.ts";
import {
  cutInputText,
  cutTextWithoutTooltip,
  pageOverflowX,
  sidewaysScrollers,
} from "../harness/layoutChecks.ts";
import { uiSuite } from "../harness/uiSuite.ts";
import { callBridge } from "../harness/webHostProcess.ts";

/**
 * Every view of the console, seeded as an admin has it (about 40 keys, two sub-accounts, PINs, a
 * sync link with a conflict), at the window's minimum 800×500 and at 1024×768, 1280×800 and
 * 1440×900, in the light and the dark scheme, in one Chromium page resized between sizes: the page
 * never scrolls sideways, no text is cut without a way to read it whole, axe finds nothing serious
 * and the text inside filled components (alerts, badges, buttons, …) reaches WCAG AA contrast.
 * The dialogs and toasts of these views get axe and the contrast check in both schemes, and the
 * defects of issue 13 in the PIN inbox, the page banner and the keys' sync mark each have a test.
 * Screenshots of each view at each size and scheme go to test-results/views/. Run after
 * `npm run -s build`.
 */

const SHOTS = join(REPO_ROOT, "test-results", "views");
const SIZES = [
  [800, 500],
  [1024, 768],
  [1280, 800],
  [1440, 900],
] as const;
const SCHEMES = ["light", "dark"] as const;
const AXE_WIDTH = 1024;
const REMOTE_USER = { username: "team-admin", password: "team-password-1" };

let remoteDir: string;
let remote: ServeProcess;
let seeded: SeededConsole | undefined;

const { test, page, host, before, after, problems } = uiSuite({
  name: "views",
  context: { viewport: { width: 1280, height: 800 } },
});

before(async () => {
  await mkdir(SHOTS, { recursive: true });
  remoteDir = await makeTempDir("keydesk-e2e-views-remote-");
  await addAccount(remoteDir, REMOTE_USER.username, REMOTE_USER.password);
  remote = await startServe({ dataDir: remoteDir, env: { KEY_SERVICE_LOG_LEVEL: "warn" } });
  seeded = await seedConsole(host, remote, REMOTE_USER);
  await page.goto(host.pageUrl);
  await page.getByTestId("service-status").waitFor({ timeout: 15_000 });
});

after(async () => {
  if (remote) assert.equal((await remote.stop("SIGTERM")).code, 0);
  if (remoteDir) await removeDir(remoteDir);
});

interface View {
  tab: string;
  file: string;
  /** Waits until the view shows its seeded content. */
  ready(): Promise<void>;
}

const VIEWS: View[] = [
  {
    tab: "Keys",
    file: "keys",
    ready: () => page.getByTestId("key-row").first().waitFor(),
  },
  {
    tab: "Profiles",
    file: "profiles",
    ready: async () => {
      await page.getByTestId("profile-row").filter({ hasText: "Team staging" }).waitFor();
      // The green "Connection works" alert (its title was written in its own background colour).
      if ((await page.getByTestId("connection-verdict").count()) === 0) {
        await page.getByRole("button", { name: "Test connection of Team staging" }).click();
      }
      await page.getByTestId("connection-verdict").waitFor();
    },
  },
  {
    tab: "PIN inbox",
    file: "pins",
    ready: () => page.getByTestId("pin-row").first().waitFor(),
  },
  {
    tab: "2FA apps",
    file: "tfa",
    ready: () => page.getByTestId("tfa-view").waitFor(),
  },
  {
    tab: "Sync",
    file: "sync",
    ready: () => page.getByTestId("sync-link").first().waitFor(),
  },
  {
    tab: "Settings",
    file: "settings",
    ready: () => page.getByTestId("settings-view").waitFor(),
  },
];

async function resize(width: number, height: number): Promise<void> {
  await page.setViewportSize({ width, height });
  // The header measures its new height a frame after the resize.
  await page.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
  );
}

async function closeToasts(): Promise<void> {
  const close = page.getByRole("button", { name: "Close notification" });
  for (let left = 10; left > 0 && (await close.count()) > 0; left--) {
    await close
      .first()
      .click({ timeout: 2000 })
      .catch(() => {}); // closed by itself meanwhile
  }
}

/** What is wrong with what the page shows now, one line each, prefixed with `where`. */
async function findings(
  where: string,
  scope: string,
  withAxe: boolean,
  withContrast = true,
): Promise<string[]> {
  const found: string[] = [];
  const overflow = await pageOverflowX(page);
  if (overflow > 0) found.push(`${where}: the page scrolls sideways by ${overflow}px`);
  for (const scroller of await sidewaysScrollers(page, scope))
    found.push(`${where}: scrolls sideways: ${scroller}`);
  for (const cut of await cutTextWithoutTooltip(page, scope))
    found.push(`${where}: cut without a tooltip: ${cut}`);
  for (const cut of await cutInputText(page, scope)) found.push(`${where}: ${cut}`);
  if (withAxe) {
    for (const violation of await seriousViolations(page, scope)) found.push(`${where}: axe: ${violation}`);
  }
  if (withContrast) {
    for (const low of await lowContrastTexts(page, scope)) found.push(`${where}: contrast: ${low}`);
  }
  return found;
}

test("every view fits every window size in both schemes, with no text cut without a tooltip and readable contrast", async () => {
  const found: string[] = [];
  for (const scheme of SCHEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForFunction(
      (scheme) => document.documentElement.getAttribute("data-mantine-color-scheme") === scheme,
      scheme,
    );
    for (const [width, height] of SIZES) {
      await resize(width, height);
      for (const view of VIEWS) {
        await page.getByRole("navigation", { name: "Views" }).getByRole("tab", { name: view.tab }).click();
        await view.ready();
        await closeToasts();
        const where = `${view.tab} ${width}×${height} ${scheme}`;
        // axe's rules are about markup and colours, the same at every size: one size per scheme
        // keeps the test's time modest. Colours do not change with the size either, but what shows
        // does: the contrast check runs where the most shows, the smallest size's whole page and the
        // widest size's columns; the layout checks run at every size.
        const here = await findings(where, "body", width === AXE_WIDTH, width === 800 || width === 1440);
        found.push(...here);
        await page.screenshot({
          path: join(SHOTS, `${view.file}-${width}x${height}-${scheme}.png`),
          // The whole page at the smallest size (what scrolls out of view there); the window as the
          // admin sees it at the others (whole pages are slow to take and to encode).
          fullPage: width === 800,
        });
      }
    }
  }
  assert.deepEqual(found, []);
  assert.deepEqual(problems, []);
});

const banner = () => page.getByTestId("query-error-banner");
const openView = (tab: string) =>
  page.getByRole("navigation", { name: "Views" }).getByRole("tab", { name: tab }).click();

test("PIN inbox: a part of a number or a formatted one finds its PINs, states and applications read whole, times carry their zone", async () => {
  await page.emulateMedia({ colorScheme: "light" });
  await resize(1024, 768);
  await openView("PIN inbox");
  const inbox = page.getByTestId("pin-inbox");
  const rows = inbox.getByTestId("pin-row");
  await rows.first().waitFor();
  assert.equal(await rows.count(), 5);
  const to = inbox.getByRole("textbox", { name: "To (phone number)" });
  const onlyNumbers = async (digits: string, count: number) => {
    await eventually(`${count} rows for ${digits}`, async () =>
      (await rows.count()) === count ? true : undefined,
    );
    for (const text of await rows.allTextContents()) assert.ok(text.includes(digits), text);
  };
  await to.fill("4179");
  await onlyNumbers("4179", 2);
  await to.fill("+41 79 302");
  await onlyNumbers("4179302", 2);
  await to.fill("1 202 555");
  await onlyNumbers("1202555", 1);
  assert.equal(await banner().count(), 0, "a search is no error");

  // Letters are no number: said on the field, not in a page-wide banner.
  await to.fill("abc");
  await inbox.getByText(/must be digits of a phone number/).waitFor();
  assert.equal(await to.getAttribute("aria-invalid"), "true");
  assert.equal(await banner().count(), 0);
  await to.fill("");
  await eventually("all rows again", async () => ((await rows.count()) === 5 ? true : undefined));
  assert.equal(await inbox.getByText(/must be digits of a phone number/).count(), 0);

  // The inbox is every account's: the header's account switcher, which would not narrow it, is gone.
  assert.equal(await page.getByRole("combobox", { name: "Account", exact: true }).count(), 0);

  for (const label of await inbox.locator('[data-testid="pin-state"] .mantine-Badge-label').all()) {
    assert.equal(await label.textContent(), "5 attempts left");
    assert.ok(await label.evaluate((element) => element.scrollWidth <= element.clientWidth), "not cut");
  }
  const names = (seeded?.applications ?? []).map((application) => application.name).sort();
  const shown = [...new Set(await inbox.getByTestId("pin-application").allTextContents())].sort();
  assert.deepEqual(shown, names, "application names, not ids");

  const sent = inbox.getByTestId("pin-sent-at").first();
  assert.match((await sent.getAttribute("title")) ?? "", /\d{4}.*\d{2}:\d{2}:\d{2}.*(UTC|GMT|[A-Z]{3})/);
  assert.match(
    (await inbox.locator("th").first().textContent()) ?? "",
    /^Sent \((UTC|GMT[+-]?\d*|[A-Z]{3,4})\)$/,
  );

  assert.deepEqual(problems, []);
});

test("a failed query's banner goes once nothing shows that query: another tab, or back to the Local profile", async (t) => {
  await resize(1024, 768);
  await openView("Keys");
  await page.getByTestId("key-row").first().waitFor();
  await callBridge(host, "profiles.activate", { id: seeded?.downProfileId });
  t.after(() => callBridge(host, "profiles.activate", { id: "local" }));
  await banner().waitFor();
  // In words: unreachable, not "could not be loaded" or "refused".
  await banner().getByText("The active profile's service is unreachable").waitFor();
  assert.match((await banner().textContent()) ?? "", /could not reach http:\/\/127\.0\.0\.1:\d+/);
  await banner().getByRole("button", { name: "Retry" }).click();
  await banner().waitFor();

  // The Settings view asks nothing of the remote: the Keys view's failure is not its banner.
  await openView("Settings");
  await page.getByTestId("settings-view").waitFor();
  await banner().waitFor({ state: "detached" });
  await openView("Keys");
  await banner().waitFor();

  await callBridge(host, "profiles.activate", { id: "local" });
  await page.getByTestId("key-row").first().waitFor();
  await banner().waitFor({ state: "detached" });
  await openView("Sync");
  await page.getByTestId("sync-link").first().waitFor();
  await openView("PIN inbox");
  await page.getByTestId("pin-row").first().waitFor();
  assert.equal(await banner().count(), 0);
  // Console errors of the failed calls are expected here; the page's own errors are not.
  problems.length = 0;
});

test("a key's sync mark in the Keys table reads whole, says why on hover and opens its conflict in the Sync view", async () => {
  await page.emulateMedia({ colorScheme: "light" });
  await resize(800, 500);
  await openView("Keys");
  await page
    .getByRole("search", { name: "Filter keys" })
    .getByRole("textbox", { name: "Search" })
    .fill("renamed here");
  // By the name button's accessible name: at 800 px a name this long is cut in its middle on screen.
  const row = page.getByTestId("key-row").filter({
    has: page.getByRole("button", { name: `Details of ${seeded?.conflictKeyName ?? ""}`, exact: true }),
  });
  await row.waitFor();
  const mark = row.getByTestId("key-sync-state");
  assert.equal(await mark.getAttribute("data-sync-state"), "conflict");
  const label = mark.locator(".mantine-Badge-label");
  assert.equal(await label.textContent(), "Conflict");
  assert.ok(await label.evaluate((element) => element.scrollWidth <= element.clientWidth), "not cut");
  await mark.hover();
  await page
    .getByRole("tooltip")
    .getByText(/changed both here and on the remote/)
    .waitFor();

  await mark.click();
  const card = page.locator('[data-testid="sync-conflict"][data-opened="true"]');
  await card.waitFor();
  assert.match((await card.textContent()) ?? "", /renamed here/);
  assert.ok(
    await card.evaluate((element) => element === document.activeElement),
    "the conflict has the focus",
  );
  await card.getByRole("button", { name: /^Keep mine/ }).waitFor();
  assert.ok(await card.getByRole("button", { name: /^Keep mine/ }).isVisible());
  await page.screenshot({ path: join(SHOTS, "sync-opened-from-key-800x500.png") });
  assert.deepEqual(problems, []);
});

interface Dialog {
  name: string;
  tab: string;
  open(): Promise<void>;
}

const DIALOGS: Dialog[] = [
  {
    name: "add-profile",
    tab: "Profiles",
    open: async () => {
      await page.getByRole("button", { name: "Add remote profile" }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByRole("textbox", { name: "Name", exact: true }).fill("Team staging again");
      await dialog.getByRole("textbox", { name: "Base URL", exact: true }).fill(remote.url);
      await dialog.getByRole("textbox", { name: "Username", exact: true }).fill(REMOTE_USER.username);
      await dialog.getByRole("textbox", { name: "Password", exact: true }).fill(REMOTE_USER.password);
      await dialog.getByRole("button", { name: "Test connection" }).click();
      await dialog.getByTestId("connection-verdict").getByText("Connection works").waitFor();
    },
  },
  {
    name: "edit-profile",
    tab: "Profiles",
    open: () => page.getByRole("button", { name: "Edit Team staging" }).click(),
  },
  {
    name: "remove-profile",
    tab: "Profiles",
    open: () => page.getByRole("button", { name: "Remove Team staging" }).click(),
  },
  {
    name: "remove-link",
    tab: "Sync",
    open: () => page.getByRole("button", { name: /^Remove link owner/ }).click(),
  },
  {
    name: "add-sub-account",
    tab: "Keys",
    open: () => page.getByRole("button", { name: "Add sub-account" }).click(),
  },
];

/** Dialogs of the Keys and Settings views, checked with those above for their footers at 800×600. */
const MORE_DIALOGS: Dialog[] = [
  {
    name: "new-key",
    tab: "Keys",
    open: () => page.getByRole("button", { name: "New key" }).click(),
  },
  {
    name: "export-keys",
    tab: "Keys",
    open: () => page.getByRole("button", { name: "Export…" }).click(),
  },
  {
    name: "bulk-disable",
    tab: "Keys",
    open: async () => {
      await page.getByRole("checkbox", { name: "Select every loaded key" }).check();
      await page.getByTestId("bulk-bar").getByRole("button", { name: "Disable…" }).click();
    },
  },
  {
    name: "roll-key",
    tab: "Keys",
    open: async () => {
      await page
        .getByRole("button", { name: /^Details of / })
        .first()
        .click();
      await page.getByRole("button", { name: "Roll…" }).click();
    },
  },
  {
    name: "back-up",
    tab: "Settings",
    open: () => page.getByRole("button", { name: "Back up…" }).click(),
  },
];

/**
 * The action buttons of the open dialog that fail to show whole without scrolling: the last button
 * and the buttons beside it (the footer), each hit-tested at its top and bottom edge, so a button below the
 * window or clipped by the dialog's own scrolling is found.
 */
async function hiddenActions(): Promise<string[]> {
  return page.evaluate(() => {
    const dialogs = document.querySelectorAll('[role="dialog"]');
    const dialog = dialogs[dialogs.length - 1];
    const buttons = dialog ? [...dialog.querySelectorAll("button")] : [];
    const last = buttons[buttons.length - 1];
    const footer = last?.parentElement;
    if (!footer) return ["no button in the dialog"];
    const hidden: string[] = [];
    for (const button of footer.querySelectorAll(":scope > button")) {
      const box = button.getBoundingClientRect();
      // Top and bottom edge at the middle (a rounded corner is no hit).
      const middle = (box.left + box.right) / 2;
      const points = [
        [middle, box.top + 1],
        [middle, box.bottom - 1],
      ] as const;
      const shown = points.every(([x, y]) => {
        const at = document.elementFromPoint(x, y);
        return at !== null && button.contains(at);
      });
      if (!shown)
        hidden.push(`“${button.textContent}” at ${Math.round(box.top)}–${Math.round(box.bottom)} px`);
    }
    return hidden;
  });
}

test("at 800×600 every dialog's action buttons show without scrolling", async () => {
  await page.emulateMedia({ colorScheme: "light" });
  await resize(800, 600);
  const found: string[] = [];
  for (const dialog of [...DIALOGS, ...MORE_DIALOGS]) {
    await openView(dialog.tab);
    await dialog.open();
    await page.getByRole("dialog").last().waitFor();
    for (const hidden of await hiddenActions()) found.push(`the ${dialog.name} dialog: ${hidden}`);
    await page.screenshot({ path: join(SHOTS, `dialog-${dialog.name}-800x600.png`) });
    // The roll dialog sits on the key's details: Escape closes the top one. Focus is put in it first
    // (a dialog closes on the Escape its own content receives; on a loaded machine focus may not
    // have moved in yet), and a dialog still in its closing transition counts until it is gone.
    for (
      let open = await page.getByRole("dialog").count();
      open > 0;
      open = await page.getByRole("dialog").count()
    ) {
      await page
        .getByRole("dialog")
        .last()
        .focus({ timeout: 1000 })
        .catch(() => undefined);
      await page.keyboard.press("Escape");
      await eventually(`fewer than ${open} dialogs open`, async () =>
        (await page.getByRole("dialog").count()) < open ? true : undefined,
      );
    }
  }
  await resize(1280, 800);
  assert.deepEqual(found, []);
  assert.deepEqual(problems, []);
});

test("every dialog of these views, in both schemes: axe and the contrast check find nothing", async () => {
  await resize(1024, 768);
  const found: string[] = [];
  for (const scheme of SCHEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const dialog of DIALOGS) {
      await openView(dialog.tab);
      await dialog.open();
      await page.getByRole("dialog").waitFor();
      const where = `the ${dialog.name} dialog, ${scheme}`;
      for (const violation of await seriousViolations(page, '[role="dialog"]'))
        found.push(`${where}: axe: ${violation}`);
      for (const low of await lowContrastTexts(page, '[role="dialog"]'))
        found.push(`${where}: contrast: ${low}`);
      await page.screenshot({ path: join(SHOTS, `dialog-${dialog.name}-1024x768-${scheme}.png`) });
      await page.keyboard.press("Escape");
      await page.getByRole("dialog").waitFor({ state: "detached" });
    }
  }
  // A toast (orange: a sync with a conflict), checked in both schemes while it shows.
  await openView("Sync");
  await page.getByRole("button", { name: /^Sync now: owner/ }).click();
  await page.locator(".mantine-Notification-root").getByText("Synced; some changes need you").waitFor();
  for (const scheme of SCHEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const low of await lowContrastTexts(page, ".mantine-Notifications-root")) {
      found.push(`the sync toast, ${scheme}: contrast: ${low}`);
    }
  }
  await page.screenshot({ path: join(SHOTS, "toast-1024x768-dark.png") });
  await closeToasts();
  // The link's times: relative, the local time with its zone on hover (not "11/23/2026, 4:27:29 PM").
  const lastSync = page.getByTestId("sync-link").first().getByTestId("sync-last-attempt");
  assert.match((await lastSync.textContent()) ?? "", /^(just now|\d+ (s|min) ago)$/);
  assert.match((await lastSync.getAttribute("title")) ?? "", /\d{4}.*\d{2}:\d{2}:\d{2}.*(UTC|GMT|[A-Z]{3})/);
  assert.deepEqual(found, []);
  assert.deepEqual(problems, []);
});

test("the header's service address reads whole at 800, 1280 and 1440 px on every view, the whole description on hover and for a screen reader", async () => {
  await page.goto(host.pageUrl);
  const text = page.getByTestId("active-service-text");
  await text.filter({ hasText: /^running at http:\/\/127\.0\.0\.1:\d+$/ }).waitFor({ timeout: 15_000 });
  for (const [width, height] of [
    [800, 500],
    [1280, 800],
    [1440, 900],
  ] as const) {
    await resize(width, height);
    // The header holds more on some views (the account switcher on Keys and 2FA apps): each is checked.
    for (const view of ["Keys", "Profiles", "PIN inbox", "2FA apps", "Sync", "Settings"]) {
      await page.getByRole("tab", { name: view, exact: true }).click();
      await resize(width, height);
      const name = view.toLowerCase().replace(/\W+/g, "-");
      await page.screenshot({ path: join(SHOTS, `header-address-${name}-${width}x${height}.png`) });
      const { cut, shown } = await text.evaluate((element) => ({
        cut: element.scrollWidth > element.clientWidth,
        shown: element.getBoundingClientRect().width,
      }));
      assert.equal(cut, false, `the address is cut at ${width} px on the ${view} view`);
      assert.ok(shown > 0, `the address shows at ${width} px on the ${view} view`);
    }
  }
  await page.getByRole("tab", { name: "Keys", exact: true }).click();
  assert.match(
    (await text.getAttribute("title")) ?? "",
    /^Profile “Local” \(embedded service\): running at http:\/\/127\.0\.0\.1:\d+$/,
  );
  assert.match(
    (await page.getByRole("status", { name: "Service of the active profile" }).textContent()) ?? "",
    /Profile “Local” \(embedded service\): running at http:\/\/127\.0\.0\.1:\d+/,
  );
  await resize(1280, 800);
});

test("a remote profile that refuses the credentials: one banner, whose Edit profile opens that profile's form", async (t) => {
  const refused = await callBridge<{ id: string }>(host, "profiles.add", {
    name: "Team (wrong password)",
    baseUrl: remote.url,
    username: REMOTE_USER.username,
    password: "not the password",
  });
  t.after(async () => {
    await callBridge(host, "profiles.activate", { id: "local" });
    await callBridge(host, "profiles.remove", { id: refused.id });
  });
  await callBridge(host, "profiles.activate", { id: refused.id });
  await page.goto(host.pageUrl);
  await banner()
    .getByText("Profile “Team (wrong password)”: the service refused its username or password")
    .waitFor({ timeout: 15_000 });
  for (const [width, height] of [
    [800, 500],
    [1280, 800],
    [1440, 900],
  ] as const) {
    await resize(width, height);
    await page.screenshot({ path: join(SHOTS, `credentials-refused-${width}x${height}.png`) });
    assert.equal(await page.getByRole("alert").count(), 1, `one banner at ${width} px`);
  }
  await banner().getByRole("button", { name: "Edit profile" }).click();
  const form = page.getByRole("dialog", { name: "Edit profile Team (wrong password)" });
  await form.waitFor();
  await page.screenshot({ path: join(SHOTS, "credentials-refused-edit-1440x900.png") });
  await form.getByRole("button", { name: "Cancel" }).click();
  await resize(1280, 800);
  problems.length = 0; // the refused calls' console errors are expected here
});
