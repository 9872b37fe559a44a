import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import http from "node:http";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Browser } from "playwright-core";
import { addAccount } from "../electron/service/accountAdmin.ts";
import { openDataDir } from "../electron/service/dataDir.ts";
import type { Account } from "../electron/service/domain/accounts.ts";
import { type ApiKeyFields, fieldsForCreate } from "../electron/service/domain/apiKeyRecords.ts";
import { chromiumMissing, launchChromium } from "../test/harness/chromium.ts";
import {
  basic,
  makeTempDir,
  REPO_ROOT,
  removeDir,
  request,
  type ServeProcess,
  startServe,
} from "../test/harness/keyServiceProcess.ts";
import { callBridge, startWebHost, type WebHostProcess } from "../test/harness/webHostProcess.ts";
import type { Benchmark } from "./lib/benchmark.ts";
import { listsInProcess } from "./lib/listProcess.ts";
import { type Metric, metric } from "./lib/metrics.ts";
import { startProbe } from "./lib/probe.ts";
import { processMemory, resetPeakRss, sampleRss } from "./lib/processMemory.ts";
import { median, percentile } from "./lib/stats.ts";
import { KEYS_PATH, type StreamedList, streamList } from "./lib/streamList.ts";
import { BenchFailure, TimedClient } from "./lib/timedHttp.ts";

/**
 * One account of 1k, 10k, 100k and 1M keys (issue 12): the full list (time, bytes, the serve
 * process's memory), a page of 1,000 keys at the start and deep in the list, and App-authorized
 * calls made while full lists run against the same calls with nothing else running. Then the UI's
 * first rows with the 1M keys. The data lives in the browser host's service folder, so the keys
 * are seeded once for both: the Local owner's account holds the 1M keys.
 */

const SIZES = [1_000, 10_000, 100_000, 1_000_000] as const;
type Size = (typeof SIZES)[number];
const LABELS: Record<Size, string> = { 1000: "1k", 10000: "10k", 100000: "100k", 1000000: "1m" };
/** The Local owner's account (the one the UI shows) holds the largest size. */
const OWNER_SIZE: Size = 1_000_000;
const PASSWORD = "bench-password-0123456789";
/** Timed full lists per size (each after the earlier ones; no separate warm-up list). */
const LIST_RUNS: Record<Size, number> = { 1000: 10, 10000: 10, 100000: 5, 1000000: 3 };
const PAGE_LIMIT = 1_000;
const PAGE_RUNS = 20;
/** Page size for walking the cursors to the deep page (the service's largest). */
const WALK_LIMIT = 10_000;
/** The deep page starts after this share of the keys. */
const DEEP_AT = 0.9;
/** Sequential probe calls with this pause between the answer and the next call. */
const PROBE_GAP_MS = 2;
/** Full lists run back to back for at least this long in all while the probe runs. */
const BUSY_WINDOW_MS = 6_000;
/** Idle and busy probing alternate this many times (at 1M: one list per round). */
const PROBE_ROUNDS = 3;
/** Pause before each idle round. */
const SETTLE_MS = 1_000;
const UI_LOADS = 3;
const ROW_SELECTOR = '[data-testid="key-row"]';
const ROW_TIMEOUT_MS = 30_000;
const RENDERER_INDEX = join(REPO_ROOT, "out", "renderer", "index.html");
const COUNT_PATH = "/local/1/accounts/_/api-keys/count";
const COUNT_RUNS = 5;

interface ScaleAccount {
  size: Size;
  username: string;
  authorization: string;
}

// ---------------------------------------------------------------------------------------------
// Seeding

/**
 * Identities in the service's shapes (newKeyId, newPublicApiKey) from one pooled random buffer:
 * a randomBytes call per 16 bytes costs more than the rest of making a key.
 */
function identities(): () => { key: string; publicApiKey: string } {
  let pool = Buffer.alloc(0);
  let at = 0;
  const take = (bytes: number) => {
    if (at + bytes > pool.length) {
      pool = randomBytes(1 << 20);
      at = 0;
    }
    at += bytes;
    return pool.subarray(at - bytes, at);
  };
  return () => ({
    key: take(16).toString("hex").toUpperCase(),
    publicApiKey: `${take(16).toString("hex")}-${randomUUID()}`,
  });
}

function validFields(request: Parameters<typeof fieldsForCreate>[0]): ApiKeyFields {
  const fields = fieldsForCreate(request);
  if (!fields.ok) throw new BenchFailure(`seed fields rejected: ${JSON.stringify(fields.errors)}`);
  return fields.value;
}

/** `count` keys in one transaction, as the fixture seeds them (every fourth with the optional fields). */
export function insertKeys(
  data: ReturnType<typeof openDataDir>,
  account: Account,
  count: number,
  log: (line: string) => void,
): void {
  const plain = validFields({ name: "scale key" });
  const withOptions = validFields({
    name: "scale key",
    allowedIPs: ["10.0.0.0/8", "192.0.2.17"],
    validFrom: "2025-01-01T00:00:00.000+0000",
    validTo: "2035-01-01T00:00:00.000+0000",
  });
  const identity = identities();
  const now = Date.now();
  const started = performance.now();
  data.db.transaction(() => {
    for (let index = 0; index < count; index++) {
      const fields = { ...(index % 4 === 0 ? withOptions : plain), name: `scale key ${index}` };
      data.apiKeys.insert(account.id, account.accountKey, identity(), fields, now + index);
      if ((index + 1) % 100_000 === 0 && index + 1 < count) {
        const seconds = (performance.now() - started) / 1000;
        log(`scale: ${account.username}: ${index + 1} keys (${seconds.toFixed(1)} s)`);
      }
    }
  })();
}

/**
 * Starts the browser host once (it makes the service folder, the owner account, `data.key` and
 * `owner.password`), stops it, and seeds the accounts directly in `<dataDir>/service`.
 */
async function seed(dataDir: string, log: (line: string) => void): Promise<Seeded> {
  const started = performance.now();
  const host = await startWebHost({ dataDir });
  try {
    const status = await callBridge<{ keychain: string }>(host, "service.status");
    if (status.keychain !== "session-only") {
      throw new BenchFailure(
        `scale: the browser host keeps its data key in the OS keychain (${status.keychain}); ` +
          "the scale bench seeds through data.key and runs without a keychain",
      );
    }
  } finally {
    await host.stop();
  }
  const serviceDir = join(dataDir, "service");
  const passwordFile = join(serviceDir, "owner.password");
  if (!existsSync(join(serviceDir, "data.key")) || !existsSync(passwordFile)) {
    throw new BenchFailure(`the browser host left no data.key or owner.password in ${serviceDir}`);
  }
  const ownerPassword = readFileSync(passwordFile, "utf8").trim();
  const data = openDataDir({ dataDir: serviceDir });
  const accounts: ScaleAccount[] = [];
  try {
    // One big transaction per account: a page cache that holds the growing indexes keeps the
    // inserts from going to the disk (about 65 s for 1M keys instead of about 105 s).
    data.db.pragma("cache_size = -1048576");
    for (const size of SIZES) {
      let account: Account;
      let authorization: string;
      if (size === OWNER_SIZE) {
        const owner = data.accounts.byUsername("owner");
        if (!owner) throw new BenchFailure("the browser host made no owner account in its service data");
        account = owner;
        authorization = basic("owner", ownerPassword);
      } else {
        account = await addAccount(data.store, { username: `scale-${size}`, password: PASSWORD });
        authorization = basic(account.username, PASSWORD);
      }
      const accountStarted = performance.now();
      insertKeys(data, account, size, log);
      const seconds = (performance.now() - accountStarted) / 1000;
      log(`scale: seeded ${size} keys in ${account.username} in ${seconds.toFixed(1)} s`);
      accounts.push({ size, username: account.username, authorization });
    }
    await addAccount(data.store, { username: "scale-probe", password: PASSWORD });
    data.db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    data.close();
  }
  return {
    accounts,
    probeAuthorization: basic("scale-probe", PASSWORD),
    seedMs: performance.now() - started,
  };
}

// ---------------------------------------------------------------------------------------------
// HTTP measurements

interface PageAnswer {
  apiKeys: unknown[];
  nextCursor: string | null;
}

async function getPage(client: TimedClient, limit: number, cursor?: string) {
  const query = `limit=${limit}${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
  const response = await client.getOk(`${KEYS_PATH}?${query}`);
  const page = JSON.parse(response.body.toString("utf8")) as PageAnswer;
  if (!Array.isArray(page.apiKeys) || !("nextCursor" in page)) {
    throw new BenchFailure(`GET ${KEYS_PATH}?${query} answered no {apiKeys, nextCursor} page`);
  }
  return { ms: response.ms, page, query };
}

/** Times one page of PAGE_LIMIT keys after `cursor` PAGE_RUNS times (after one untimed call). */
async function timePage(client: TimedClient, size: number, cursor: string | undefined, keysBefore: number) {
  const expected = Math.min(PAGE_LIMIT, size - keysBefore);
  const times: number[] = [];
  for (let run = 0; run <= PAGE_RUNS; run++) {
    const { ms, page, query } = await getPage(client, PAGE_LIMIT, cursor);
    if (page.apiKeys.length !== expected) {
      throw new BenchFailure(`GET ?${query} gave ${page.apiKeys.length} keys, expected ${expected}`);
    }
    if (run > 0) times.push(ms);
  }
  return times;
}

/** Walks the cursors (WALK_LIMIT keys a page) to the position after `target` keys. */
async function cursorAfter(
  client: TimedClient,
  target: number,
): Promise<{ cursor: string; pageMs: number[] }> {
  let cursor: string | undefined;
  let walked = 0;
  const pageMs: number[] = [];
  while (walked < target) {
    const limit = Math.min(WALK_LIMIT, target - walked);
    const { ms, page, query } = await getPage(client, limit, cursor);
    if (page.apiKeys.length !== limit || page.nextCursor === null) {
      throw new BenchFailure(`GET ?${query} gave ${page.apiKeys.length} keys and cursor ${page.nextCursor}`);
    }
    if (limit === WALK_LIMIT) pageMs.push(ms);
    walked += limit;
    cursor = page.nextCursor;
  }
  if (cursor === undefined) throw new BenchFailure("no keys to walk");
  return { cursor, pageMs };
}

/** A PIN of the probe account and a TFA key of it: the App-authorized probe's path and header. */
export async function probeSetUp(server: ServeProcess, authorization: string) {
  const ok = async (path: string, body: unknown) => {
    const response = await request(server.url, { method: "POST", path, authorization, body });
    if (response.status !== 200) throw new BenchFailure(`POST ${path}: ${response.status} ${response.text}`);
    return response.json as Record<string, string>;
  };
  const { applicationId } = await ok("/2fa/2/applications", { name: "scale probe" });
  const { messageId } = await ok(`/2fa/2/applications/${applicationId}/messages`, {
    messageText: "Your code is {{pin}}",
    pinType: "NUMERIC",
  });
  const { pinId } = await ok("/2fa/2/pin?ncNeeded=false", { applicationId, messageId, to: "41793026727" });
  const tfa = await ok(KEYS_PATH, { name: "scale probe", permissions: ["TFA"] });
  return { path: `/2fa/2/pin/${pinId}/status`, appAuthorization: `App ${tfa.publicApiKey}` };
}

async function measureSize(
  server: ServeProcess,
  account: ScaleAccount,
  probe: { path: string; authorization: string },
  log: (line: string) => void,
): Promise<Metric[]> {
  const label = LABELS[account.size];
  const pid = server.child.pid as number;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const pages = new TimedClient(server.url, { authorization: account.authorization });
  const m = (name: string, value: number, unit: string, target?: Parameters<typeof metric>[4]) =>
    metric("scale", `${label}.${name}`, value, unit, target);
  try {
    // One small page first: the scrypt check of the account's credentials is then cached.
    await getPage(pages, 1);

    // Full lists, with the serve process's memory around them.
    const before = processMemory(pid).rssMb;
    const peakReset = resetPeakRss(pid);
    const sampler = sampleRss(pid);
    const lists: StreamedList[] = [];
    for (let run = 0; run < LIST_RUNS[account.size]; run++) {
      const list = await streamList(agent, server.url, account.authorization);
      if (list.keys !== account.size) {
        throw new BenchFailure(
          `the full list of ${account.username} had ${list.keys} keys, expected ${account.size}`,
        );
      }
      lists.push(list);
      if (account.size >= 100_000) log(`scale: ${label}: full list ${(list.ms / 1000).toFixed(2)} s`);
    }
    const sampledPeak = sampler.stop();
    const memory = processMemory(pid);
    const peak = peakReset ? memory.peakMb : sampledPeak;
    const listMs = lists.map((list) => list.ms);

    // Pages of 1,000: the first one, and one after DEEP_AT of the keys (cursors walked to it).
    const firstPage = await timePage(pages, account.size, undefined, 0);
    const deepAt = Math.floor(account.size * DEEP_AT);
    const walk = await cursorAfter(pages, deepAt);
    const deepPage = await timePage(pages, account.size, walk.cursor, deepAt);

    // The count of the account's keys (the UI shows it), through its own route.
    const countTimes: number[] = [];
    for (let run = 0; run <= COUNT_RUNS; run++) {
      const response = await pages.getOk(COUNT_PATH);
      const { count } = JSON.parse(response.body.toString("utf8")) as { count: number };
      if (count !== account.size) {
        throw new BenchFailure(
          `GET ${COUNT_PATH} of ${account.username} counted ${count}, expected ${account.size}`,
        );
      }
      if (run > 0) countTimes.push(response.ms);
    }

    // The probe while full lists run back to back, then as many calls with nothing else running,
    // in alternating rounds: a passing disturbance of the machine lands in one round of each, not
    // in the whole of one, and both p99s are of as many calls (the p99 of fewer calls moves more
    // from run to run). Probe and lists each in a thread of their own.
    const probeTarget = {
      url: `${server.url}${probe.path}`,
      authorization: probe.authorization,
      gapMs: PROBE_GAP_MS,
    };
    const idle: number[] = [];
    const busy: number[] = [];
    let busyLists = 0;
    for (let round = 0; round < PROBE_ROUNDS; round++) {
      await sleep(SETTLE_MS);
      // The lists' reader runs at the lowest priority (lib/listLoop.ts): what the probe then
      // competes with is the service's work for the lists, not the bench's reading of them.
      const lists = listsInProcess({
        url: server.url,
        authorization: account.authorization,
        forMs: BUSY_WINDOW_MS / PROBE_ROUNDS,
        keys: account.size,
      });
      await lists.ready;
      const busyProbe = startProbe(probeTarget);
      let calls: number;
      try {
        busyLists += await lists.done;
      } finally {
        const times = await busyProbe.stop();
        busy.push(...times);
        calls = times.length;
      }
      // The service settles first (its collector works after a list): idle means no list's work.
      await sleep(SETTLE_MS);
      idle.push(...(await startProbe({ ...probeTarget, calls }).done));
    }
    const end = processMemory(pid).rssMb;
    const idleP99 = percentile(idle, 99);
    const busyP99 = percentile(busy, 99);
    log(
      `scale: ${label}: list ${median(listMs).toFixed(1)} ms, page ${median(firstPage).toFixed(2)} / ` +
        `${median(deepPage).toFixed(2)} ms, probe p50 ${median(idle).toFixed(2)} idle / ${median(busy).toFixed(2)} ms, ` +
        `p90 ${percentile(idle, 90).toFixed(2)} / ${percentile(busy, 90).toFixed(2)} ms, ` +
        `p99 ${idleP99.toFixed(2)} idle / ${busyP99.toFixed(2)} ms ` +
        `during ${busyLists} list(s) (${busy.length} calls)`,
    );

    const isLargest = account.size === OWNER_SIZE;
    return [
      m("list.median", median(listMs), "ms", isLargest ? { below: 5000 } : undefined),
      m("list.max", Math.max(...listMs), "ms"),
      m("list.firstByte", median(lists.map((list) => list.firstByteMs)), "ms"),
      m("list.bytes", (lists[0] as StreamedList).bytes, "bytes"),
      m("rss.before", before, "MB"),
      m("rss.peak", peak, "MB"),
      m("rss.after", memory.rssMb, "MB"),
      m("rss.growth", peak - before, "MB", isLargest ? { below: 100 } : undefined),
      m("rss.end", end, "MB"),
      m("page.first.median", median(firstPage), "ms", { below: 20 }),
      m("page.first.max", Math.max(...firstPage), "ms"),
      m("page.deep.median", median(deepPage), "ms", { below: 20 }),
      m("page.deep.max", Math.max(...deepPage), "ms"),
      ...(walk.pageMs.length > 0 ? [m("page.10k.median", median(walk.pageMs), "ms")] : []),
      m("count.median", median(countTimes), "ms"),
      m("probe.idleP50", median(idle), "ms"),
      m("probe.listP50", median(busy), "ms"),
      m("probe.idleP99", idleP99, "ms"),
      m("probe.listP99", busyP99, "ms"),
      m("probe.listMax", Math.max(...busy), "ms"),
      m("probe.ratio", busyP99 / idleP99, "x", { below: 2 }),
      m("probe.listCalls", busy.length, "calls"),
    ];
  } finally {
    pages.close();
    agent.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// UI

/** Records, in the page's clock, when the first key row enters the DOM. */
function watchFirstRow(selector: string): void {
  const state = window as unknown as { __firstRowAt?: number };
  const observer = new MutationObserver(() => {
    if (state.__firstRowAt === undefined && document.querySelector(selector)) {
      state.__firstRowAt = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(document, { childList: true, subtree: true });
}

interface FirstRows {
  /** Navigation to the first key row. */
  ms: number;
  /** Navigation to the first keys.page request (NaN: none made). */
  keysPageSentMs: number;
  /** Navigation to the last byte of the first keys.page and keys.count answers (NaN: none made). */
  keysPageMs: number;
  keysCountMs: number;
}

/** The first key row and the bridge calls before it, in the page's clock; undefined when no row came in time. */
async function timeFirstRows(browser: Browser, pageUrl: string): Promise<FirstRows | undefined> {
  const page = await browser.newPage();
  try {
    await page.addInitScript(watchFirstRow, ROW_SELECTOR);
    await page.goto(pageUrl);
    await page.waitForFunction(() => (window as unknown as { __firstRowAt?: number }).__firstRowAt, null, {
      timeout: ROW_TIMEOUT_MS,
      polling: 50,
    });
    return await page.evaluate(() => {
      const first = (method: string) =>
        performance
          .getEntriesByType("resource")
          .find((resource) => resource.name.endsWith(`/bridge/${method}`)) as
          | PerformanceResourceTiming
          | undefined;
      const page = first("keys.page");
      const count = first("keys.count");
      return {
        ms: (window as unknown as { __firstRowAt: number }).__firstRowAt,
        keysPageSentMs: page ? page.startTime : Number.NaN,
        keysPageMs: page ? page.responseEnd : Number.NaN,
        keysCountMs: count ? count.responseEnd : Number.NaN,
      };
    });
  } catch {
    return undefined;
  } finally {
    await page.close();
  }
}

/** The newest modification time under a folder (the renderer's sources). */
async function newestMtime(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

async function measureUi(dataDir: string, log: (line: string) => void): Promise<Metric[]> {
  if (chromiumMissing) throw new BenchFailure(chromiumMissing);
  if (!existsSync(RENDERER_INDEX)) {
    throw new BenchFailure(
      `the renderer is not built (${RENDERER_INDEX} is missing): run "npm run build" first`,
    );
  }
  if ((await newestMtime(join(REPO_ROOT, "renderer"))) > statSync(RENDERER_INDEX).mtimeMs) {
    log('scale: WARNING the renderer sources are newer than the build; run "npm run build" first');
  }
  let host: WebHostProcess | undefined;
  let browser: Browser | undefined;
  try {
    host = await startWebHost({ dataDir });
    browser = await launchChromium();
    const loads: FirstRows[] = [];
    let timedOut = 0;
    // The first load warms the host, the service's caches and Chromium; it is not counted.
    for (let load = 0; load <= UI_LOADS; load++) {
      const timing = await timeFirstRows(browser, host.pageUrl);
      log(
        `scale: ui load ${load}${load === 0 ? " (warm-up)" : ""}: ` +
          (timing === undefined
            ? `no key row within ${ROW_TIMEOUT_MS / 1000} s`
            : `first rows after ${timing.ms.toFixed(0)} ms (keys.page sent at ${timing.keysPageSentMs.toFixed(0)}, answered at ${timing.keysPageMs.toFixed(0)} ms)`),
      );
      if (timing === undefined) {
        // A UI that loads every key before the first row: further loads would only time out too.
        timedOut++;
        break;
      }
      if (load > 0) loads.push(timing);
    }
    const hostRss = processMemory(host.child.pid as number).rssMb;
    const ui = (name: string, value: number, unit: string, target?: Parameters<typeof metric>[4]) =>
      metric("scale", `1m.ui.${name}`, value, unit, target);
    const answered = (pick: (timing: FirstRows) => number) =>
      loads.map(pick).filter((ms) => Number.isFinite(ms));
    const pageSent = answered((timing) => timing.keysPageSentMs);
    const pageAnswered = answered((timing) => timing.keysPageMs);
    const countAnswered = answered((timing) => timing.keysCountMs);
    const firstRows = loads.map((timing) => timing.ms);
    return [
      // With every load timed out, the value is the time-out: the first rows took longer.
      ui("firstRows.median", firstRows.length > 0 ? median(firstRows) : ROW_TIMEOUT_MS, "ms", {
        below: 1000,
      }),
      ...(firstRows.length > 0 ? [ui("firstRows.max", Math.max(...firstRows), "ms")] : []),
      ...(pageSent.length > 0 ? [ui("keysPageSent.median", median(pageSent), "ms")] : []),
      ...(pageAnswered.length > 0 ? [ui("keysPageAnswered.median", median(pageAnswered), "ms")] : []),
      ...(countAnswered.length > 0 ? [ui("keysCountAnswered.median", median(countAnswered), "ms")] : []),
      ui("timeouts", timedOut, "loads", { equals: 0 }),
      ui("hostRss", hostRss, "MB"),
    ];
  } finally {
    await browser?.close();
    if (host) {
      const exit = await host.stop();
      if (exit.code !== 0) log(`scale: the browser host exited with ${exit.code ?? exit.signal}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * BENCH_SCALE_SIZES (for instance "100000,1000000") measures only those sizes of the seeded data:
 * a quicker loop while working on the service. Runs with it are not the bench's full results.
 */
function sizeWanted(size: number): boolean {
  const wanted = process.env.BENCH_SCALE_SIZES;
  return !wanted || wanted.split(",").map(Number).includes(size);
}

/** Written after seeding: lets BENCH_SCALE_DATA_DIR reuse the seeded folder in later runs. */
const SEEDED_FILE = "scale-seeded.json";
interface Seeded {
  accounts: ScaleAccount[];
  probeAuthorization: string;
  seedMs: number;
}

/**
 * The seeded data folder: a fresh temporary one, or BENCH_SCALE_DATA_DIR (seeded on the first run
 * and kept, then reused as it is: about two minutes less per run while working on the service).
 */
async function seededDataDir(
  log: (line: string) => void,
): Promise<{ dataDir: string; seeded: Seeded; reused: boolean; keep: boolean }> {
  const kept = process.env.BENCH_SCALE_DATA_DIR;
  if (kept && existsSync(join(kept, SEEDED_FILE))) {
    const seeded = JSON.parse(readFileSync(join(kept, SEEDED_FILE), "utf8")) as Seeded;
    const sizes = seeded.accounts.map((account) => account.size).join(",");
    if (sizes !== SIZES.join(",")) {
      throw new BenchFailure(
        `${kept} holds the sizes ${sizes}, not ${SIZES.join(",")}; remove it to seed again`,
      );
    }
    log(`scale: reusing the seeded data in ${kept} (BENCH_SCALE_DATA_DIR)`);
    return { dataDir: kept, seeded, reused: true, keep: true };
  }
  if (kept) {
    await mkdir(kept, { recursive: true });
    if ((await readdir(kept)).length > 0) {
      throw new BenchFailure(`BENCH_SCALE_DATA_DIR ${kept} is neither empty nor a seeded scale folder`);
    }
  }
  const dataDir = kept ?? (await makeTempDir("keydesk-bench-scale-"));
  try {
    const seeded = await seed(dataDir, log);
    log(`scale: seeded ${SIZES.join(" + ")} keys in ${(seeded.seedMs / 1000).toFixed(1)} s`);
    if (kept) await writeFile(join(kept, SEEDED_FILE), JSON.stringify(seeded), { mode: 0o600 });
    return { dataDir, seeded, reused: false, keep: kept !== undefined };
  } catch (error) {
    await removeDir(dataDir);
    throw error;
  }
}

export const scaleBenchmark: Benchmark = {
  name: "scale",
  description:
    "1k, 10k, 100k and 1M keys in one account: full list, pages, memory, probe calls, UI first rows",
  async run(context) {
    const log = context.log;
    const benchStarted = performance.now();
    const load = loadavg()[0] as number;
    if (load > availableParallelism()) {
      log(
        `scale: WARNING load average ${load.toFixed(1)} on ${availableParallelism()} cores: the numbers will be noisy`,
      );
    }
    const { dataDir, seeded, reused, keep } = await seededDataDir(log);
    let server: ServeProcess | undefined;
    try {
      const cpuProfileDir = process.env.BENCH_CPU_PROF_DIR;
      server = await startServe({
        dataDir: join(dataDir, "service"),
        env: {
          KEY_SERVICE_LOG_LEVEL: "warn",
          ...(cpuProfileDir && { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${cpuProfileDir}` }),
        },
      });
      log(
        `scale: key-service serve on ${server.url}${cpuProfileDir ? ` (CPU profile to ${cpuProfileDir})` : ""}`,
      );
      const metrics: Metric[] = [
        metric("scale", "loadAverage", load, "procs"),
        ...(reused ? [] : [metric("scale", "seed", seeded.seedMs / 1000, "s")]),
      ];
      const probeSetup = await probeSetUp(server, seeded.probeAuthorization);
      const probeTarget = { path: probeSetup.path, authorization: probeSetup.appAuthorization };
      // Warm-up: the key's first authorization, and the JIT of the probe's path.
      await startProbe({
        url: `${server.url}${probeTarget.path}`,
        authorization: probeTarget.authorization,
        gapMs: PROBE_GAP_MS,
        calls: 50,
      }).done;
      for (const account of seeded.accounts.filter((each) => sizeWanted(each.size))) {
        metrics.push(...(await measureSize(server, account, probeTarget, log)));
      }
      const exit = await server.stop("SIGTERM");
      server = undefined;
      if (exit.code !== 0)
        throw new BenchFailure(`key-service serve exited with ${exit.code ?? exit.signal}`);

      if (process.env.BENCH_SCALE_SKIP_UI) log("scale: BENCH_SCALE_SKIP_UI set; no UI loads");
      else metrics.push(...(await measureUi(dataDir, log)));
      metrics.push(metric("scale", "duration", (performance.now() - benchStarted) / 1000, "s"));
      return metrics;
    } catch (error) {
      if (server) log(`scale: serve stderr:\n${server.stderr().slice(-2000)}`);
      throw error;
    } finally {
      await server?.stop("SIGKILL");
      if (!keep) await removeDir(dataDir);
    }
  },
};
