import assert from "node:assert/strict";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { seriousViolations } from "../harness/axe.ts";
import { makeTempDir, removeDir } from "../harness/keyServiceProcess.ts";
import { pageOverflowX } from "../harness/layoutChecks.ts";
import { RESULTS } from "../harness/uiSession.ts";
import { uiSuite } from "../harness/uiSuite.ts";
import { callBridge, keyringSessionMissing, startWebHost } from "../harness/webHostProcess.ts";

/**
 * Settings → Back up… and Restore… end to end in Chromium through the browser host: a backup is
 * one download, the restore an upload; the round trip brings the keys back with the same
 * publicApiKeys; a wrong passphrase says so and changes nothing; automatic backups are off without
 * a keychain (with the reason) and listed with one (gnome-keyring in a private D-Bus session).
 * Run after `npm run -s build`.
 */

const PASSPHRASE = "a long and quiet passphrase";

let dataDir: string;
let backupFile: string;
let original: Map<string, string>;

interface KeyView {
  key: string;
  name: string;
}

/** Every key's publicApiKey by name, as the bridge reveals them. */
async function publicApiKeys(): Promise<Map<string, string>> {
  const { keys } = await bridge<{ keys: KeyView[] }>("keys.page", { limit: 500 });
  const out = new Map<string, string>();
  for (const key of keys) {
    out.set(
      key.name,
      (await bridge<{ publicApiKey: string }>("keys.revealPublicApiKey", { key: key.key })).publicApiKey,
    );
  }
  return out;
}

const {
  test,
  session,
  page,
  host,
  browser,
  bridge,
  before,
  after,
  problems: pageProblems,
} = uiSuite({
  name: "backup",
  host: (dataDir) => ({ env: { DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dataDir, "no-such-bus")}` } }),
  context: { viewport: { width: 1280, height: 800 }, acceptDownloads: true },
  timeout: 15_000,
});

before(async () => {
  ({ dataDir } = session);
  backupFile = join(dataDir, "..", `${dataDir.split("/").pop()}-saved.kdbackup`);
  for (const name of ["Billing backend", "Reports", "Mobile app"]) {
    await bridge("keys.create", { request: { name } });
  }
  original = await publicApiKeys();
});

after(async () => {
  if (backupFile) await removeDir(backupFile);
});

async function openSettings(): Promise<void> {
  await page.getByRole("navigation", { name: "Views" }).getByRole("tab", { name: "Settings" }).click();
  await page.getByTestId("backup-settings").waitFor();
}

async function resize(width: number, height: number): Promise<void> {
  await page.setViewportSize({ width, height });
  await page.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
  );
  await page.waitForTimeout(100);
}

test("Back up…: the passphrase twice with a strength hint, then one download of the sealed file", async () => {
  await page.goto(host.pageUrl);
  await openSettings();
  await page.getByRole("button", { name: "Back up…" }).click();
  const dialog = page.getByRole("dialog", { name: "Back up the Local data" });
  await dialog.getByLabel(/^Passphrase/).fill("too short");
  assert.equal(
    await dialog.getByTestId("password-strength").textContent(),
    "Too short: use at least 12 characters.",
    "the hint says the backup's floor, not the accounts' 8",
  );
  await dialog.getByLabel("Confirm passphrase").fill("too shorT");
  await dialog.getByRole("button", { name: "Back up", exact: true }).click();
  await dialog.getByText(/^At least 12 characters: the file may travel far/).waitFor();
  await dialog.getByText("The passphrases do not match: type the same one twice.").waitFor();
  await dialog.getByLabel(/^Passphrase/).fill(PASSPHRASE);
  assert.notEqual(
    await dialog.getByTestId("password-strength").textContent(),
    "Too short: use at least 12 characters.",
  );
  await dialog.getByLabel("Confirm passphrase").fill(PASSPHRASE);
  assert.equal(
    await dialog
      .getByRole("checkbox", { name: "Include the remote profiles' passwords from the OS keychain" })
      .isChecked(),
    false,
    "off by default",
  );
  await resize(800, 500);
  await page.screenshot({ path: join(RESULTS, "backup-dialog-800x500.png") });
  await resize(1280, 800);
  const downloading = page.waitForEvent("download");
  await dialog.getByRole("button", { name: "Back up", exact: true }).click();
  // The passphrase's key derivation alone takes half a second: the progress line shows meanwhile.
  const progress = dialog.getByTestId("backup-progress");
  await progress.waitFor();
  await page.screenshot({ path: join(RESULTS, "backup-progress-1280x800.png") });
  assert.match((await progress.textContent()) ?? "", /Starting…|of .* \(\d+ %\)/);
  const download = await downloading;
  assert.match(download.suggestedFilename(), /^keydesk-backup-\d{4}-\d{2}-\d{2}\.kdbackup$/);
  await download.saveAs(backupFile);
  assert.ok((await stat(backupFile)).size > 1000);
  const done = dialog.getByTestId("backup-done");
  await done.waitFor();
  assert.match((await done.textContent()) ?? "", /3 keys of 1 account \(/);
  await page.screenshot({ path: join(RESULTS, "backup-done-1280x800.png") });
  await dialog.getByRole("button", { name: "Done" }).click();
});

async function chooseBackup(): Promise<ReturnType<Page["getByRole"]>> {
  await page.getByRole("button", { name: "Restore…" }).click();
  const dialog = page.getByRole("dialog", { name: "Restore the Local data from a backup" });
  await dialog.locator('input[type="file"]').setInputFiles(backupFile);
  await dialog.getByTestId("restore-confirmation").waitFor();
  return dialog;
}

test("Restore… with a wrong passphrase: an error in words, nothing changed", async () => {
  // The data changes after the backup: one key more, one renamed.
  await bridge("keys.create", { request: { name: "Made after the backup" } });
  const { keys } = await bridge<{ keys: KeyView[] }>("keys.page", {});
  const reports = keys.find((key) => key.name === "Reports") as KeyView;
  await bridge("keys.update", { key: reports.key, request: { name: "Reports (renamed)" } });
  const dialog = await chooseBackup();
  assert.match((await dialog.getByTestId("restore-replaces").textContent()) ?? "", /4 keys of 1 account\./);
  assert.ok(((await dialog.getByTestId("restore-created-at").textContent()) ?? "").length > 0);
  await dialog.getByLabel("The backup's passphrase").fill("not the right passphrase");
  await dialog.getByRole("button", { name: "Replace the Local data" }).click();
  const alert = dialog.getByRole("alert").filter({ hasText: "Not restored" });
  await alert.waitFor();
  assert.match(
    (await alert.textContent()) ?? "",
    /was not restored: the passphrase is wrong, or the file is damaged; nothing was written.*unchanged/,
  );
  await page.screenshot({ path: join(RESULTS, "restore-wrong-passphrase-1024x768.png") });
  assert.equal((await publicApiKeys()).size, 4, "nothing changed");
  await dialog.getByRole("button", { name: "Cancel" }).click();
});

test("Restore… round trip: the keys are back and their publicApiKeys copy the same", async () => {
  const dialog = await chooseBackup();
  await page.screenshot({ path: join(RESULTS, "restore-confirm-1280x800.png") });
  await dialog.getByLabel("The backup's passphrase").fill(PASSPHRASE);
  await dialog.getByRole("button", { name: "Replace the Local data" }).click();
  const done = dialog.getByTestId("restore-done");
  await done.waitFor();
  assert.match(
    (await done.textContent()) ?? "",
    /Restored 3 keys of 1 account from.*service\.before-restore-/,
  );
  await page.screenshot({ path: join(RESULTS, "restore-done-1280x800.png") });
  await dialog.getByRole("button", { name: "Done" }).click();
  assert.deepEqual(await publicApiKeys(), original);
  // The page's queries refreshed: the Keys view lists the backup's keys, not the changed ones.
  await page.getByRole("navigation", { name: "Views" }).getByRole("tab", { name: "Keys" }).click();
  await page.getByTestId("key-row").first().waitFor();
  const names = await page.getByTestId("key-row").allTextContents();
  assert.equal(names.length, 3);
  assert.ok(names.some((row) => row.includes("Reports")) && !names.some((row) => row.includes("renamed")));
});

test("automatic backups without a keychain: the switch is off and disabled, with the reason", async () => {
  await openSettings();
  const auto = page.getByTestId("auto-backups");
  const toggle = auto.getByRole("switch", { name: "Back up automatically every day" });
  assert.equal(await toggle.isDisabled(), true);
  assert.match((await auto.getByTestId("auto-backup-unavailable").textContent()) ?? "", /OS keychain/);
});

test("the backup card at 800×500, 1024×768 and 1280×800: screenshots, axe, no overflow", async () => {
  await openSettings();
  for (const [width, height] of [
    [800, 500],
    [1024, 768],
    [1280, 800],
  ] as const) {
    await resize(width, height);
    await page.getByTestId("backup-settings").scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(RESULTS, `backup-settings-${width}x${height}.png`) });
    assert.equal(await pageOverflowX(page), 0, `${width}×${height}: no sideways overflow`);
  }
  assert.deepEqual(await seriousViolations(page, '[data-testid="backup-settings"]'), []);
  assert.deepEqual(pageProblems, []);
});

test("automatic backups with an OS keychain: switched on with a passphrase, listed with date and size", async (t) => {
  if (keyringSessionMissing) {
    if (process.env.CI === "true") assert.fail(keyringSessionMissing);
    t.skip(keyringSessionMissing);
    return;
  }
  const keyringDataDir = await makeTempDir("keydesk-e2e-backup-keyring-data-");
  const keyringHome = await makeTempDir("keydesk-e2e-backup-keyring-home-");
  t.after(async () => {
    await removeDir(keyringDataDir);
    await removeDir(keyringHome);
  });
  const keyringHost = await startWebHost({ dataDir: keyringDataDir, keyringHome });
  t.after(async () => assert.equal((await keyringHost.stop()).code, 0, keyringHost.stderr()));
  const other = await browser.newPage({ viewport: { width: 1024, height: 768 } });
  t.after(() => other.close());
  await other.goto(keyringHost.pageUrl);
  await other.getByRole("navigation", { name: "Views" }).getByRole("tab", { name: "Settings" }).click();
  const auto = other.getByTestId("auto-backups");
  await auto.getByRole("switch", { name: "Back up automatically every day" }).click({ force: true });
  const form = auto.getByTestId("auto-backup-form");
  await form.getByLabel("Passphrase of the automatic backups").fill(PASSPHRASE);
  await form.getByLabel("Confirm passphrase").fill(PASSPHRASE);
  await form.getByRole("button", { name: "Switch on" }).click();
  const rows = auto.getByTestId("auto-backup-list").locator("tbody tr");
  await rows.first().waitFor();
  assert.equal(await rows.count(), 1);
  assert.match((await rows.first().textContent()) ?? "", /\d.*(kB|bytes)/);
  assert.equal(await auto.getByRole("switch", { name: "Back up automatically every day" }).isChecked(), true);
  await auto.scrollIntoViewIfNeeded();
  await other.screenshot({ path: join(RESULTS, "backup-automatic-1024x768.png") });
  const status = await callBridge<{ backups: { name: string }[]; folder: string }>(
    keyringHost,
    "backup.auto.status",
  );
  assert.equal(status.folder, join(keyringDataDir, "backups"));
  // One of them restored through the Restore flow, with the passphrase from the keychain.
  await auto.getByRole("button", { name: /^Restore the backup of / }).click();
  const dialog = other.getByRole("dialog", { name: "Restore the Local data from a backup" });
  await dialog.getByTestId("restore-confirmation").waitFor();
  await dialog.getByRole("button", { name: "Replace the Local data" }).click();
  await dialog.getByTestId("restore-done").waitFor();
});
