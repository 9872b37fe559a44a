import assert from "node:assert/strict";
import { after, before, test as nodeTest, type TestContext, type TestOptions } from "node:test";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { chromiumMissing } from "./chromium.ts";
import { everyPage } from "./keyPages.ts";
import { closeUiSession, openUiSession, type UiSession, type UiSessionOptions } from "./uiSession.ts";
import { callBridge, type WebHostProcess } from "./webHostProcess.ts";

/**
 * One e2e file's browser session and its tests, set up in one call:
 *
 *   const { test, page, host, bridge, row } = uiSuite({ name: "keys" });
 *   test("…", async () => { await page.goto(host.pageUrl); … });
 *
 * It registers the before/after hooks that open and close the UiSession, and its `test` skips
 * every test (or fails it under CI=true) where Chromium is missing, so no file repeats that. Where
 * Chromium is missing nothing is started at all: no host, no browser.
 */

/** A key as keys.page lists it (the fields the e2e files read). */
export interface ListedKey {
  key: string;
  name: string;
  /** What keys.page gives of the publicApiKey: its hint, never the key. */
  publicApiKeyHint: string;
  permissions: string[];
  enabled: boolean;
  allowedIPs?: string[];
  validFrom?: string;
  validTo?: string;
}

type TestFn = (t: TestContext) => void | Promise<void>;
type HookFn = () => unknown;

export interface UiSuite {
  /** The open session (dataDir among others); usable in hooks and tests, not at load time. */
  session: UiSession;
  page: Page;
  host: WebHostProcess;
  browser: Browser;
  context: BrowserContext;
  /** The page's console errors and uncaught exceptions (a test asserts it stays empty). */
  problems: string[];
  /** A bridge call over HTTP, as the page makes it; throws on a bridge error. */
  bridge<T = Record<string, unknown>>(method: string, args?: unknown): Promise<T>;
  /** The rows of the Keys table. */
  rows(): Locator;
  /** The Keys table's rows that mention `name`. */
  row(name: string): Locator;
  /** Every key of an account, page after page through keys.page. */
  allKeys(accountKey?: string): Promise<ListedKey[]>;
  /** node:test's `test`, skipped (failed under CI=true) where Chromium is missing. */
  test(name: string, fn: TestFn): Promise<void>;
  test(name: string, options: TestOptions, fn: TestFn): Promise<void>;
  /** A before hook of the file's own, run after the session opened; not run without Chromium. */
  before(fn: HookFn): void;
  /** An after hook of the file's own, run after the session closed; not run without Chromium. */
  after(fn: HookFn): void;
}

export type UiSuiteOptions = Omit<UiSessionOptions, "problems">;

/**
 * Stands for an object that exists only once the before hook has run, so that a file can take
 * `page` and `host` at load time and use them in its tests and helpers as before.
 */
function whenOpen<T extends object>(get: () => T | undefined, what: string): T {
  return new Proxy({} as T, {
    get(_, property) {
      const target = get();
      if (!target) throw new Error(`the e2e ${what} is used before uiSuite's before hook opened it`);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * node:test's `test` for a browser test: skipped where Chromium is missing, failed instead under
 * CI=true (CI must run every browser test). uiSuite hands it out as `test`; a file that drives its
 * own browser (several hosts or contexts) uses it directly.
 */
export function chromiumTest(name: string, fn: TestFn): Promise<void>;
export function chromiumTest(name: string, options: TestOptions, fn: TestFn): Promise<void>;
export function chromiumTest(
  name: string,
  optionsOrFn: TestOptions | TestFn,
  maybeFn?: TestFn,
): Promise<void> {
  const [testOptions, fn] =
    typeof optionsOrFn === "function" ? [{}, optionsOrFn] : [optionsOrFn, maybeFn as TestFn];
  if (!chromiumMissing) return nodeTest(name, testOptions, fn);
  // CI must run every browser test: a missing Chromium there is a failure, not a skip.
  if (process.env.CI === "true") {
    const missing = chromiumMissing;
    return nodeTest(name, testOptions, () => assert.fail(missing));
  }
  return nodeTest(name, { ...testOptions, skip: chromiumMissing });
}

/**
 * A failed UI test's error, with what its pages showed in dialogs and alerts at that moment: CI
 * keeps no screenshots, and a timeout alone does not say why a dialog stayed open.
 */
async function withScreenText(error: unknown, context: BrowserContext | undefined): Promise<unknown> {
  if (!(error instanceof Error) || !context) return error;
  const shown: string[] = [];
  for (const open of context.pages()) {
    const texts = await open
      .locator('[role="dialog"], [role="alert"]')
      .allInnerTexts()
      .catch((failure: unknown) => [`(page not readable: ${String(failure)})`]);
    for (const text of texts) shown.push(`${open.url()}: ${text.replace(/\s+/g, " ").slice(0, 400)}`);
  }
  if (shown.length > 0) error.message += `\n  dialogs and alerts on screen:\n  - ${shown.join("\n  - ")}`;
  return error;
}

export function uiSuite(options: UiSuiteOptions): UiSuite {
  let session: UiSession | undefined;
  const problems: string[] = [];
  // The file's own hooks run inside these two, so they always see the session open.
  const befores: HookFn[] = [];
  const afters: HookFn[] = [];
  before(async () => {
    if (chromiumMissing) return;
    session = await openUiSession({ ...options, problems });
    for (const fn of befores) await fn();
  });
  after(async () => {
    try {
      await closeUiSession(session);
    } finally {
      if (session) for (const fn of afters) await fn();
    }
  });

  const host = whenOpen(() => session?.host, "host");
  const page = whenOpen(() => session?.page, "page");
  const bridge = <T = Record<string, unknown>>(method: string, args?: unknown) =>
    callBridge<T>(host, method, args);
  const rows = () => page.getByTestId("key-row");

  return {
    session: whenOpen(() => session, "session"),
    page,
    host,
    browser: whenOpen(() => session?.browser, "browser"),
    context: whenOpen(() => session?.context, "context"),
    problems,
    bridge,
    rows,
    row: (name) => rows().filter({ hasText: name }),
    allKeys: (accountKey = "_") =>
      everyPage((cursor) =>
        bridge<{ keys: ListedKey[]; nextCursor: string | null }>("keys.page", {
          accountKey,
          limit: 500,
          ...(cursor !== null && { cursor }),
        }),
      ),
    test: (name: string, optionsOrFn: TestOptions | TestFn, maybeFn?: TestFn) => {
      const [testOptions, fn] =
        typeof optionsOrFn === "function" ? [{}, optionsOrFn] : [optionsOrFn, maybeFn as TestFn];
      return chromiumTest(name, testOptions, async (t) => {
        try {
          await fn(t);
        } catch (error) {
          throw await withScreenText(error, session?.context);
        }
      });
    },
    before: (fn) => {
      befores.push(fn);
    },
    after: (fn) => {
      afters.push(fn);
    },
  };
}
