import assert from "node:assert/strict";
import { closeSync, openSync, writeSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import Database from "better-sqlite3";
import type { Browser, Page } from "playwright-core";
import {
  chromiumMissing,
  launchChromium,
  skipWithoutChromium,
  watchPageErrors,
} from "../harness/chromium.ts";
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

/**
 * Overwrites every page of the keys table in the file with garbage, beside the running service:
 * a checkpoint first (so the pages are in the file, not the WAL), then a write of the header page
 * through SQLite, so that the service's connections drop their cached pages and read the file.
 */
function damageKeysTable(file: string): void {
  const db = new Database(file);
  try {
    db.pragma("busy_timeout = 5000");
    db.pragma("wal_checkpoint(TRUNCATE)");
    const pageSize = db.pragma("page_size", { simple: true }) as number;
    const pages = db.prepare("SELECT pageno FROM dbstat WHERE name = 'api_keys'").all() as {
      pageno: number;
    }[];
    assert.ok(pages.length > 0);
    const fd = openSync(file, "r+");
    for (const { pageno } of pages)
      writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (pageno - 1) * pageSize);
    closeSync(fd);
    const version = db.pragma("user_version", { simple: true }) as number;
    db.pragma(`user_version = ${version}`);
  } finally {
    db.close();
  }
}

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
  await page.screenshot({ path: join(RESULTS, "damaged-database-1280x800.png") });
});
