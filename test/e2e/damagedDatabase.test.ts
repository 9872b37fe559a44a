import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import {
  chromiumMissing,
  launchChromium,
  skipWithoutChromium,
  watchPageErrors,
} from "../harness/chromium.ts";
import { damageKeysTable } from "../harness/damageDatabase.ts";
import { makeTempDir, REPO_ROOT, removeDir } from "../harness/keyServiceProcess.ts";
import { callBridge, startWebHost, type WebHostProcess } from "../harness/webHostProcess.ts";

/**
 * The embedded service's database damaged while the app runs: the Keys view says so in words,
 * the service's own 503 text naming the file and how to restore, not a bare "failed". Run after
 * `npm run -s build`.
 */

const RESULTS = join(REPO_ROOT, "test-results");

let dataDir: string;
let host: WebHostProcess;
let browser: Browser;
let page: Page;
const pageProblems: string[] = [];

before(async () => {
  if (chromiumMissing) return;
  await mkdir(RESULTS, { recursive: true });
  dataDir = await makeTempDir("keydesk-e2e-damaged-");
  host = await startWebHost({
    dataDir,
    env: { DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dataDir, "no-such-bus")}` },
  });
  for (const name of ["Billing backend", "Reports"])
    await callBridge(host, "keys.create", { request: { name } });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  watchPageErrors(page, pageProblems);
  page.setDefaultTimeout(15_000);
});

after(async () => {
  await browser?.close();
  await host?.stop();
  if (dataDir) await removeDir(dataDir);
});

test("a damaged database: the Keys view shows the service's words, naming the file and how to restore", async (t) => {
  if (skipWithoutChromium(t)) return;
  const file = join(dataDir, "service", "keydesk.db");
  damageKeysTable(file);
  await page.goto(host.pageUrl);
  const alert = page.getByRole("alert").filter({ hasText: "The keys could not be loaded" });
  await alert.waitFor();
  const text = (await alert.textContent()) ?? "";
  assert.ok(text.includes(`the database ${file} is damaged`), text);
  assert.match(text, /restore/i);
  // The desktop's own way back, not only the command line's.
  assert.ok(text.includes("In Keydesk: Settings → Restore… brings the Local data back from a backup"), text);
  await page.screenshot({ path: join(RESULTS, "damaged-database-1280x800.png") });
});
