import { existsSync, statSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { Browser, Page } from "playwright-core";
import { openDataDir } from "../electron/service/dataDir.ts";
import { fieldsForCreate } from "../electron/service/domain/apiKeyRecords.ts";
import { newKeyId, newPublicApiKey } from "../electron/service/domain/identifiers.ts";
import { chromiumMissing, launchChromium } from "../test/harness/chromium.ts";
import { makeTempDir, REPO_ROOT, removeDir } from "../test/harness/keyServiceProcess.ts";
import { callBridge, startWebHost, type WebHostProcess } from "../test/harness/webHostProcess.ts";
import type { Benchmark } from "./lib/benchmark.ts";
import { metric } from "./lib/metrics.ts";
import { median, percentile } from "./lib/stats.ts";
import { BenchFailure } from "./lib/timedHttp.ts";

/**
 * The UI with a large account: the browser host on a data folder whose Local owner account holds
 * 10,000 keys, driven by Debian's Chromium through playwright-core. Measures, in the page's own
 * clock (performance.now()), the time from navigation to the first row of the keys table, and
 * from a keystroke in the name filter to the filtered rows.
 */

const KEY_COUNT = 10_000;
/** Every 100th key carries this word, so one keystroke ("q") narrows the list to 100 keys. */
const MARKER = "quick";
const FILTER_KEY = "q";
const PAGE_LOADS = 6;
const KEYSTROKES_PER_LOAD = 3;
/** The keys view's markup (renderer/src/features/keys/KeysView.tsx). */
const ROW_SELECTOR = '[data-testid="key-row"]';
const RENDERER_INDEX = join(REPO_ROOT, "out", "renderer", "index.html");
const ROW_TIMEOUT_MS = 20_000;
/** A bridge call of the browser host; a refusal fails the bench. */
const bridge = (host: WebHostProcess, method: string, args?: unknown): Promise<unknown> =>
  callBridge(host, method, args).catch((error: Error) => {
    throw new BenchFailure(error.message);
  });

function keyName(index: number): string {
  return index % 100 === 0 ? `ui key ${index} ${MARKER}` : `ui key ${index}`;
}

/** The newest modification time under a folder (the renderer's sources). */
async function newestMtime(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * Seeds the owner's keys directly in `<dataDir>/service` when its data key is the `data.key` file
 * (no OS keychain); with a keychain, through the bridge in parallel batches.
 */
async function seed(dataDir: string, log: (line: string) => void): Promise<WebHostProcess> {
  let host: WebHostProcess | undefined;
  try {
    return await seedAndStart(dataDir, log, (started) => {
      host = started;
    });
  } catch (error) {
    await host?.stop();
    throw error;
  }
}

async function seedAndStart(
  dataDir: string,
  log: (line: string) => void,
  running: (host: WebHostProcess) => void,
): Promise<WebHostProcess> {
  const started = performance.now();
  // A first start creates the service's data folder, the owner account and the data key.
  let host = await startWebHost({ dataDir });
  running(host);
  const status = (await bridge(host, "service.status")) as { keychain: string };
  const serviceDir = join(dataDir, "service");
  if (status.keychain === "session-only" && existsSync(join(serviceDir, "data.key"))) {
    await host.stop();
    const data = openDataDir({ dataDir: serviceDir });
    try {
      const owner = data.accounts.byUsername("owner");
      if (!owner) throw new BenchFailure("the browser host made no owner account in its service data");
      const now = Date.now();
      data.db.transaction(() => {
        for (let index = 0; index < KEY_COUNT; index++) {
          const fields = fieldsForCreate({ name: keyName(index) });
          if (!fields.ok) throw new BenchFailure(`seed fields rejected: ${JSON.stringify(fields.errors)}`);
          const identity = { key: newKeyId(), publicApiKey: newPublicApiKey() };
          data.apiKeys.insert(owner.id, owner.accountKey, identity, fields.value, now + index);
        }
      })();
      data.db.pragma("wal_checkpoint(TRUNCATE)");
    } finally {
      data.close();
    }
    host = await startWebHost({ dataDir });
    running(host);
  } else {
    log("ui: the data key is in the OS keychain; seeding through the bridge");
    const batch = 50;
    for (let from = 0; from < KEY_COUNT; from += batch) {
      await Promise.all(
        Array.from({ length: Math.min(batch, KEY_COUNT - from) }, (_, offset) =>
          bridge(host, "keys.create", { request: { name: keyName(from + offset) } }),
        ),
      );
    }
  }
  const { count } = (await bridge(host, "keys.count", { accountKey: "_" })) as { count: number };
  if (count !== KEY_COUNT) {
    throw new BenchFailure(`the owner account holds ${count} keys, expected ${KEY_COUNT}`);
  }
  log(`ui: seeded ${KEY_COUNT} keys in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return host;
}

/** Records, in the page's clock, when the first key row enters the DOM. */
function watchFirstRow(selector: string): void {
  const state = window as unknown as { __firstRowAt?: number };
  const check = () => {
    if (state.__firstRowAt === undefined && document.querySelector(selector)) {
      state.__firstRowAt = performance.now();
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document, { childList: true, subtree: true });
}

interface FirstRowsTiming {
  page: Page;
  /** Navigation to the first key row in the DOM. */
  ms: number;
  /** Navigation to the first keys.page request, and to the last byte of its answer (where the time goes). */
  keysPageSentMs: number;
  keysPageMs: number;
}

async function timeFirstRows(browser: Browser, pageUrl: string): Promise<FirstRowsTiming> {
  const page = await browser.newPage();
  await page.addInitScript(watchFirstRow, ROW_SELECTOR);
  await page.goto(pageUrl);
  try {
    await page.waitForFunction(() => (window as unknown as { __firstRowAt?: number }).__firstRowAt, null, {
      timeout: ROW_TIMEOUT_MS,
      polling: 50,
    });
  } catch {
    const text = (
      (await page
        .locator("#root")
        .textContent()
        .catch(() => "")) ?? ""
    ).slice(0, 300);
    await page.close();
    throw new BenchFailure(
      `the keys view showed no row (${ROW_SELECTOR}) within ${ROW_TIMEOUT_MS / 1000} s of loading the page; ` +
        `is the keys view (renderer/src/features/keys/) finished, and the renderer built (npm run build)? ` +
        `The page showed: ${JSON.stringify(text)}`,
    );
  }
  const { ms, keysPageSentMs, keysPageMs } = await page.evaluate(() => {
    const first = performance
      .getEntriesByType("resource")
      .find((entry) => entry.name.endsWith("/bridge/keys.page")) as PerformanceResourceTiming | undefined;
    return {
      ms: (window as unknown as { __firstRowAt: number }).__firstRowAt,
      keysPageSentMs: first ? first.startTime : Number.NaN,
      keysPageMs: first ? first.responseEnd : Number.NaN,
    };
  });
  return { page, ms, keysPageSentMs, keysPageMs };
}

/**
 * One keystroke in the name filter: from the keydown (in the page's clock) to the moment every
 * row in the DOM is a key whose name contains the typed text; then the filter is cleared again.
 */
async function timeKeystroke(page: Page): Promise<number> {
  const filter = page.getByRole("textbox", { name: "Search", exact: true });
  if ((await filter.count()) !== 1) {
    throw new BenchFailure('the keys view has no single text field labelled "Search" (the name filter)');
  }
  await filter.fill("");
  await page.waitForFunction(
    ({ selector, marker }) => {
      const rows = [...document.querySelectorAll(selector)];
      return rows.length > 0 && rows.some((row) => !(row.textContent ?? "").includes(marker));
    },
    { selector: ROW_SELECTOR, marker: MARKER },
    { timeout: ROW_TIMEOUT_MS },
  );
  await filter.focus();
  // The watcher is in place (awaited) before the key is pressed.
  await page.evaluate(
    ({ selector, marker, timeoutMs }) => {
      const state = window as unknown as { __filtered?: Promise<number> };
      state.__filtered = new Promise<number>((resolve, reject) => {
        let pressedAt: number | undefined;
        const filtered = () => {
          const rows = [...document.querySelectorAll(selector)];
          return (
            rows.length > 0 &&
            rows.every((row) => {
              const name = row.querySelector('td, [role="cell"]') ?? row;
              return (name.textContent ?? "").includes(marker);
            })
          );
        };
        const observer = new MutationObserver(() => {
          if (pressedAt !== undefined && filtered()) {
            const at = performance.now();
            observer.disconnect();
            clearTimeout(timer);
            resolve(at - pressedAt);
          }
        });
        const timer = setTimeout(() => {
          observer.disconnect();
          reject(
            new Error(
              pressedAt === undefined
                ? "the keystroke did not reach the page"
                : `the rows were not filtered within ${timeoutMs} ms of the keystroke`,
            ),
          );
        }, timeoutMs);
        window.addEventListener(
          "keydown",
          () => {
            pressedAt = performance.now();
          },
          { capture: true, once: true },
        );
        observer.observe(document.body, { childList: true, subtree: true, characterData: true });
      });
    },
    { selector: ROW_SELECTOR, marker: MARKER, timeoutMs: 10_000 },
  );
  await page.keyboard.press(FILTER_KEY);
  try {
    return await page.evaluate(() => (window as unknown as { __filtered: Promise<number> }).__filtered);
  } catch (error) {
    throw new BenchFailure(`name filter: ${(error as Error).message}`);
  }
}

export const uiBenchmark: Benchmark = {
  name: "ui",
  description: `keys view in Chromium via the browser host, ${KEY_COUNT} keys: first rows and name filter`,
  async run(context) {
    if (chromiumMissing) throw new BenchFailure(chromiumMissing);
    if (!existsSync(RENDERER_INDEX)) {
      throw new BenchFailure(
        `the renderer is not built (${RENDERER_INDEX} is missing): run "npm run build" first`,
      );
    }
    if ((await newestMtime(join(REPO_ROOT, "renderer"))) > statSync(RENDERER_INDEX).mtimeMs) {
      context.log('ui: WARNING the renderer sources are newer than the build; run "npm run build" first');
    }
    const dataDir = await makeTempDir("keydesk-bench-ui-");
    let host: WebHostProcess | undefined;
    let browser: Browser | undefined;
    try {
      host = await seed(dataDir, context.log);
      browser = await launchChromium();
      const firstRows: number[] = [];
      const keysPages: number[] = [];
      const keysPagesSent: number[] = [];
      const keystrokes: number[] = [];
      // The first load warms the host, the service's caches and Chromium; it is not counted.
      for (let load = 0; load <= PAGE_LOADS; load++) {
        const { page, ms, keysPageSentMs, keysPageMs } = await timeFirstRows(browser, host.pageUrl);
        try {
          if (load > 0) firstRows.push(ms);
          if (load > 0 && Number.isFinite(keysPageMs)) {
            keysPages.push(keysPageMs);
            keysPagesSent.push(keysPageSentMs);
          }
          for (let stroke = 0; stroke < KEYSTROKES_PER_LOAD; stroke++) {
            const keystrokeMs = await timeKeystroke(page);
            if (load > 0) keystrokes.push(keystrokeMs);
          }
        } finally {
          await page.close();
        }
        context.log(
          `ui: load ${load}${load === 0 ? " (warm-up)" : ""}: first rows after ${ms.toFixed(0)} ms`,
        );
      }
      return [
        metric("ui", "firstRows.median", median(firstRows), "ms", { below: 1000 }),
        metric("ui", "firstRows.max", Math.max(...firstRows), "ms"),
        ...(keysPages.length > 0
          ? [
              metric("ui", "keysPageSent.median", median(keysPagesSent), "ms"),
              metric("ui", "keysPageAnswered.median", median(keysPages), "ms"),
            ]
          : []),
        metric("ui", "filterKeystroke.median", median(keystrokes), "ms", { below: 100 }),
        metric("ui", "filterKeystroke.p90", percentile(keystrokes, 90), "ms"),
        metric("ui", "keys", KEY_COUNT, "keys"),
      ];
    } finally {
      await browser?.close();
      if (host) {
        const exit = await host.stop();
        if (exit.code !== 0) context.log(`ui: the browser host exited with ${exit.code ?? exit.signal}`);
      }
      await removeDir(dataDir);
    }
  },
};
