import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { KEYCHAIN_BUILD_PACKAGES, KEYCHAIN_RUNTIME_PACKAGES } from "../../shared/keychainPackages.ts";
import { seriousViolations } from "../harness/axe.ts";
import { watchPageErrors } from "../harness/chromium.ts";
import { eventually } from "../harness/eventually.ts";
import { makeTempDir, removeDir } from "../harness/keyServiceProcess.ts";
import { RESULTS } from "../harness/uiSession.ts";
import { uiSuite } from "../harness/uiSuite.ts";
import { bridgeAnswer, callBridge, keyringSessionMissing, startWebHost } from "../harness/webHostProcess.ts";

/**
 * The Settings view end to end in Debian's Chromium through the browser host: the clipboard clear
 * delay (loaded from settings.get, validated inline, saved on submit, used by the next copy, kept
 * across a reload) and where credentials are kept, for a host without an OS keychain and for one
 * with a real one (gnome-keyring in a private D-Bus session). Run after `npm run -s build`.
 */

let dataDir: string;

interface ServiceStatus {
  keychain: "os" | "session-only";
  keychainUnavailableReason?: string;
  localSecretsDir?: string;
}

const {
  test,
  session,
  page,
  host,
  browser,
  bridge,
  before,
  problems: pageProblems,
} = uiSuite({
  name: "settings",
  // A bus address where no bus listens: the host finds no Secret Service, whatever session the
  // test runs in, and opens a session-only vault the way the app does without a keychain.
  host: (dataDir) => ({ env: { DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dataDir, "no-such-bus")}` } }),
  context: { viewport: { width: 1280, height: 800 } },
  clipboard: true,
});

before(() => {
  ({ dataDir } = session);
});

const delayField = (on: Page = page) =>
  on.getByRole("textbox", { name: "Clear the clipboard after (seconds)" });
const saveButton = () => page.getByTestId("clipboard-settings").getByRole("button", { name: "Save" });

async function openSettings(on: Page = page): Promise<void> {
  await on.getByRole("navigation", { name: "Views" }).getByRole("tab", { name: "Settings" }).click();
  await on.getByTestId("settings-view").waitFor();
  await delayField(on).waitFor();
}

/** Resizes the window and waits for the header to measure its new height (a frame after the resize). */
async function resize(width: number, height: number): Promise<void> {
  await page.setViewportSize({ width, height });
  await page.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
  );
  await page.waitForTimeout(100);
}

async function assertNoAxeViolations(what: string, on: Page = page): Promise<void> {
  assert.deepEqual(await seriousViolations(on, '[data-testid="settings-view"]'), [], what);
}

test("the Settings tab shows the saved delay, from settings.get", async () => {
  const { clipboardClearSeconds } = await bridge<{ clipboardClearSeconds: number }>("settings.get");
  assert.equal(clipboardClearSeconds, 30, "the default");
  await page.goto(host.pageUrl);
  await openSettings();
  assert.equal(await delayField().inputValue(), "30");
  await assertNoAxeViolations("the Settings view");
});

test("invalid delays show an inline error and save nothing", async () => {
  const cases = [
    { typed: "3", error: "At least 5 seconds." },
    { typed: "99999", error: "At most 3600 seconds (one hour)." },
    { typed: "", error: "Enter a number of seconds from 5 to 3600." },
  ];
  for (const { typed, error } of cases) {
    await delayField().fill(typed);
    await saveButton().click();
    await page.getByText(error, { exact: true }).waitFor();
    assert.equal(await delayField().getAttribute("aria-invalid"), "true", `"${typed}" is marked invalid`);
    // The message is the field's description for assistive technology, not just text nearby.
    const describedBy = (await delayField().getAttribute("aria-describedby")) ?? "";
    const errorId = await page.getByText(error, { exact: true }).getAttribute("id");
    assert.ok(
      errorId && describedBy.split(" ").includes(errorId),
      `"${typed}": the error describes the field`,
    );
    assert.equal(await delayField().inputValue(), typed, "the value stays as typed, not clamped");
    assert.equal(await page.getByTestId("settings-saved").count(), 0, "no confirmation");
  }
  await resize(800, 500);
  await page.screenshot({ path: join(RESULTS, "settings-invalid-800x500.png") });
  await resize(1280, 800);
  await assertNoAxeViolations("the Settings view with an invalid delay");
  const { clipboardClearSeconds } = await bridge<{ clipboardClearSeconds: number }>("settings.get");
  assert.equal(clipboardClearSeconds, 30, "nothing was saved");

  // The bridge refuses the same values itself, whatever page sends them.
  for (const value of [3, 99999, 7.5]) {
    const answer = await bridgeAnswer(host, "settings.update", { clipboardClearSeconds: value });
    assert.equal(answer.ok, false, `settings.update ${value} is refused`);
  }
});

test("a valid delay is saved on submit, with a confirmation; the next copy clears after it, also after a reload", async () => {
  await delayField().fill("7");
  await saveButton().click();
  const saved = page.getByTestId("settings-saved");
  await saved.waitFor();
  assert.equal(await saved.textContent(), "Saved: a copied publicApiKey is cleared after 7 s.");
  assert.equal(await delayField().getAttribute("aria-invalid"), null, "no error left");
  assert.deepEqual(await bridge("settings.get"), {
    clipboardClearSeconds: 7,
    theme: "auto",
    expiryNotifications: true,
  });
  await page.screenshot({ path: join(RESULTS, "settings-saved-1280x800-light.png") });

  // Editing the field again withdraws the confirmation: it speaks of the saved value only.
  await delayField().fill("8");
  await saved.waitFor({ state: "detached" });
  await delayField().fill("7");

  // The bridge's copy answers the new delay (the browser host hands the key to the page).
  const key = await bridge<{ key: string; publicApiKey: string }>("keys.create", {
    request: { name: "Settings probe" },
  });
  const copy = await bridge<Record<string, unknown>>("clipboard.copyPublicApiKey", {
    accountKey: "_",
    key: key.key,
  });
  assert.deepEqual(copy, { writtenBy: "page", publicApiKey: key.publicApiKey, clearsAfterMs: 7000 });

  // After a reload the page asks main again, and main still answers 7; a Copy click uses it.
  await page.reload();
  await page.getByRole("button", { name: "Copy the publicApiKey of Settings probe" }).click();
  await page
    .getByText(
      /The publicApiKey of “Settings probe” \(profile “Local”, account .+\) is on the clipboard \(cleared in 7 s\)/,
    )
    .waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key.publicApiKey);
  await openSettings();
  assert.equal(await delayField().inputValue(), "7");
});

test("without an OS keychain the Settings view says where each credential is kept, and how to get the keychain", async () => {
  const status = await bridge<ServiceStatus>("service.status");
  assert.equal(status.keychain, "session-only", "the host found no keychain on a bus that is not there");
  const section = page.getByTestId("credential-storage");
  assert.equal(await section.getAttribute("data-keychain"), "session-only");
  const text = (await section.textContent()) ?? "";
  assert.ok(
    text.includes(status.keychainUnavailableReason ?? "(no reason)"),
    `the reason main gives is shown: ${text}`,
  );
  assert.match(text, /Remote profile passwords are kept for this session only/);
  assert.match(text, /owner password and data key are kept in the files owner\.password and data\.key in/);
  assert.match(text, /stay the same across restarts/);
  // Run time and build time apart: a Secret Service in a D-Bus session, and keytar's build packages.
  const hint = (await section.getByTestId("keychain-linux-hint").textContent()) ?? "";
  assert.ok(hint.includes(`apt-get install ${KEYCHAIN_RUNTIME_PACKAGES}`), hint);
  assert.match(hint, /running and unlocked in your D-Bus session/);
  assert.match(hint, /dbus-run-session/);
  assert.ok(hint.includes(`install ${KEYCHAIN_BUILD_PACKAGES} and run npm install again`), hint);
  assert.match(hint, /Then restart Keydesk\.$/);
  await section.screenshot({ path: join(RESULTS, "settings-no-keychain-card.png") });
  await page.evaluate(() => window.scrollTo(0, 0)); // the views' screenshots below start at the top
  assert.equal(status.localSecretsDir, join(dataDir, "service"));
  assert.equal(await section.getByTestId("local-secrets-dir").textContent(), status.localSecretsDir);

  // The header says the same in short, on hover and to screen readers.
  const badge = page.getByRole("banner").getByText("No OS keychain", { exact: true });
  await badge.hover();
  await page
    .getByRole("tooltip")
    .getByText(/^Remote passwords for this session only; the Local password and data key in files/)
    .waitFor();
  await page.mouse.move(0, 0);
});

/** Every element of the header has its vertical middle within a few pixels of the title's. */
async function headerOnOneLine(): Promise<boolean> {
  return page.evaluate(() => {
    const header = document.querySelector("header");
    const title = header?.querySelector("h1");
    if (!header || !title) return false;
    const middle = (element: Element) => {
      const box = element.getBoundingClientRect();
      return box.top + box.height / 2;
    };
    const items = header.querySelectorAll(
      '[data-testid="service-status"], button, .mantine-Badge-root, input, h1',
    );
    // Hidden inputs (a Select's value) and visually hidden text have no size, and no line. The
    // account switcher shows on the Keys view only: here the title, the status, its two badges and
    // Check now.
    const shown = [...items].filter((item) => item.getBoundingClientRect().width > 1);
    return shown.length >= 5 && shown.every((item) => Math.abs(middle(item) - middle(title)) < 8);
  });
}

test("the Settings view in light and dark at 800×500, 1024×768 and 1280×800: screenshots, axe, no overflow", async () => {
  // Toasts of the copy above close themselves; the screenshots are of the view.
  await page.waitForFunction(() => !document.querySelector(".mantine-Notification-root"), null, {
    timeout: 8000,
  });
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForFunction(
      (wanted) => document.documentElement.dataset.mantineColorScheme === wanted,
      scheme,
    );
    for (const [width, height] of [
      [800, 500],
      [1024, 768],
      [1280, 800],
    ] as const) {
      await resize(width, height);
      await page.screenshot({ path: join(RESULTS, `settings-${width}x${height}-${scheme}.png`) });
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.equal(overflow, 0, `${width}×${height} ${scheme}: nothing wider than the window`);
      const [headerBottom, tabsTop] = await page.evaluate(() => [
        document.querySelector("header")?.getBoundingClientRect().bottom ?? Number.NaN,
        document.querySelector('[role="tablist"]')?.getBoundingClientRect().top ?? Number.NaN,
      ]);
      assert.ok(
        (headerBottom as number) <= (tabsTop as number),
        `${width}×${height} ${scheme}: the header (to ${headerBottom}) does not cover the tabs (at ${tabsTop})`,
      );
      if (width === 1280)
        assert.ok(await headerOnOneLine(), `${scheme}: the header fits on one line at 1280`);
    }
    await assertNoAxeViolations(`the Settings view, ${scheme}`);
  }
  await page.emulateMedia({ colorScheme: "light" });
  assert.deepEqual(pageProblems, [], "no console errors or uncaught exceptions");
});

test("the theme: Dark applies at once whatever the system says, is kept across a reload, and Follow the system follows it again", async () => {
  const scheme = () => page.evaluate(() => document.documentElement.dataset.mantineColorScheme);
  await resize(1024, 768);
  await page.emulateMedia({ colorScheme: "light" });
  await openSettings();
  const themes = page.getByTestId("theme-settings");
  assert.equal(
    await themes.getByRole("radio", { name: "Follow the system" }).isChecked(),
    true,
    "the default",
  );
  assert.equal(await scheme(), "light");

  await themes.getByRole("radio", { name: "Dark" }).check();
  await page.waitForFunction(() => document.documentElement.dataset.mantineColorScheme === "dark");
  await eventually("the theme saved", async () =>
    (await bridge<{ theme: string }>("settings.get")).theme === "dark" ? true : undefined,
  );
  await assertNoAxeViolations("the Settings view in the dark theme");
  await page.screenshot({ path: join(RESULTS, "settings-theme-dark-1024x768.png") });

  // Kept by main, not only by this page: a page without Mantine's remembered choice gets it too.
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  await openSettings();
  await page.waitForFunction(() => document.documentElement.dataset.mantineColorScheme === "dark");
  assert.equal(
    await page.getByTestId("theme-settings").getByRole("radio", { name: "Dark" }).isChecked(),
    true,
  );

  await page.getByTestId("theme-settings").getByRole("radio", { name: "Follow the system" }).check();
  await page.waitForFunction(() => document.documentElement.dataset.mantineColorScheme === "light");
  await page.emulateMedia({ colorScheme: "dark" });
  await page.waitForFunction(() => document.documentElement.dataset.mantineColorScheme === "dark");
  await page.emulateMedia({ colorScheme: "light" });
  await eventually("auto saved", async () =>
    (await bridge<{ theme: string }>("settings.get")).theme === "auto" ? true : undefined,
  );
  assert.deepEqual(pageProblems, [], "no console errors or uncaught exceptions");
});

test("with the OS keychain the Settings view and the header say every credential is kept there", async (t) => {
  if (keyringSessionMissing) {
    if (process.env.CI === "true") assert.fail(keyringSessionMissing);
    t.skip(keyringSessionMissing);
    return;
  }
  const keyringDataDir = await makeTempDir("keydesk-e2e-settings-keyring-data-");
  const keyringHome = await makeTempDir("keydesk-e2e-settings-keyring-home-");
  t.after(async () => {
    await removeDir(keyringDataDir);
    await removeDir(keyringHome);
  });
  const keyringHost = await startWebHost({ dataDir: keyringDataDir, keyringHome });
  t.after(async () => assert.equal((await keyringHost.stop()).code, 0, keyringHost.stderr()));
  const status = await callBridge<ServiceStatus>(keyringHost, "service.status");
  assert.equal(
    status.keychain,
    "os",
    `the host found the unlocked keyring: ${status.keychainUnavailableReason}`,
  );

  const otherContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  t.after(() => otherContext.close());
  const other = await otherContext.newPage();
  const problems: string[] = [];
  watchPageErrors(other, problems);
  await other.goto(keyringHost.pageUrl);
  await openSettings(other);
  const section = other.getByTestId("credential-storage");
  assert.equal(await section.getAttribute("data-keychain"), "os");
  assert.match(
    (await section.textContent()) ?? "",
    /Remote profile passwords, the Local service's owner password and its data key are kept in the OS keychain\./,
  );
  assert.equal(await section.getByTestId("local-secrets").count(), 0, "no files to speak of");
  await other.getByRole("banner").getByText("OS keychain", { exact: true }).hover();
  await other.getByRole("tooltip").getByText("Credentials are kept in the OS keychain.").waitFor();
  await other.mouse.move(0, 0);
  await other.getByRole("tooltip").waitFor({ state: "detached" });
  await other.screenshot({ path: join(RESULTS, "settings-os-keychain-1280x800-light.png") });
  await assertNoAxeViolations("the Settings view with the OS keychain", other);
  assert.deepEqual(problems, [], "no console errors or uncaught exceptions");
});
