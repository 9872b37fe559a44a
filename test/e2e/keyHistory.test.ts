import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { seriousViolations } from "../harness/axe.ts";
import {
  chromiumMissing,
  launchChromium,
  skipWithoutChromium,
  watchPageErrors,
} from "../harness/chromium.ts";
import { makeTempDir, REPO_ROOT, removeDir } from "../harness/keyServiceProcess.ts";
import { callBridge, startWebHost, type WebHostProcess } from "../harness/webHostProcess.ts";

/**
 * The History section of a key's details panel in Chromium through the browser host: after an
 * edit in the UI, it shows who changed the key, when, through the desktop app, and old → new.
 */

const RESULTS = join(REPO_ROOT, "test-results");

let dataDir: string;
let host: WebHostProcess;
let browser: Browser;
let page: Page;
const pageProblems: string[] = [];

const row = (name: string) => page.getByTestId("key-row").filter({ hasText: name });

before(async () => {
  if (chromiumMissing) return;
  await mkdir(RESULTS, { recursive: true });
  dataDir = await makeTempDir("keydesk-e2e-key-history-");
  host = await startWebHost({ dataDir });
  browser = await launchChromium();
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    timezoneId: "Europe/Berlin",
  });
  page = await context.newPage();
  watchPageErrors(page, pageProblems);
  page.setDefaultTimeout(10_000);
  await callBridge(host, "keys.create", { accountKey: "_", request: { name: "Audited app" } });
});

after(async () => {
  await browser?.close();
  if (host) assert.equal((await host.stop()).code, 0);
  if (dataDir) await removeDir(dataDir);
});

test("after an edit, the details panel's History shows who changed what, when and through what", async (t) => {
  if (skipWithoutChromium(t)) return;
  await page.goto(host.pageUrl);
  await row("Audited app").getByRole("button", { name: "Edit Audited app" }).click();
  const dialog = page.getByRole("dialog", { name: "Edit “Audited app”" });
  await dialog.getByLabel("Name").fill("Audited app v2");
  await dialog.getByRole("button", { name: "Save changes" }).click();
  await dialog.waitFor({ state: "hidden" });

  await row("Audited app v2").getByRole("button", { name: "Details of Audited app v2" }).click();
  const panel = page.getByRole("dialog", { name: "Key “Audited app v2”" });
  await panel.waitFor();
  const entries = panel.getByTestId("key-history-entry");
  await entries.nth(1).waitFor();
  assert.equal(await entries.count(), 2);
  const edit = (await entries.nth(0).textContent()) ?? "";
  assert.match(edit, /^Edited/);
  assert.match(edit, /just now|s ago/);
  assert.match(edit, /by owner via the desktop app from 127\.0\.0\.1/);
  assert.match(edit, /Name: Audited app → Audited app v2/);
  const created = (await entries.nth(1).textContent()) ?? "";
  assert.match(created, /^Created/);
  assert.match(created, /Name: Audited app/);
  assert.match(created, /Enabled: yes/);
  assert.doesNotMatch(created, /→/, "a create shows the values it set, not old → new");
  await panel.getByTestId("key-history").scrollIntoViewIfNeeded();
  assert.deepEqual(await seriousViolations(page, "body"), [], "axe on the details panel with its history");
  await page.screenshot({ path: join(RESULTS, "key-history.png") });
  assert.deepEqual(pageProblems, []);
});
