import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { launchChromium, watchPageErrors } from "./chromium.ts";
import { makeTempDir, REPO_ROOT, removeDir } from "./keyServiceProcess.ts";
import { startWebHost, type WebHostProcess } from "./webHostProcess.ts";

/** Where the e2e tests write their screenshots (and their reader looks at them). */
export const RESULTS = join(REPO_ROOT, "test-results");

/**
 * What an e2e file drives: a browser host on a fresh data dir and one Chromium page on it, whose
 * console errors and uncaught exceptions collect in `problems`.
 */
export interface UiSession {
  dataDir: string;
  host: WebHostProcess;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  problems: string[];
}

type HostOptions = { env?: NodeJS.ProcessEnv; args?: string[]; keyringHome?: string };

export interface UiSessionOptions {
  /** Names the temp data dir ("keydesk-e2e-<name>-…"). */
  name: string;
  /** The browser host's own options (extra arguments, environment, a real keychain), or a function of the data dir giving them. */
  host?: HostOptions | ((dataDir: string) => HostOptions);
  /** The browser context's options: viewport, time zone, downloads. */
  context?: BrowserContextOptions;
  /** Lets the page read and write the clipboard (copied keys are read back from it). */
  clipboard?: boolean;
  /** Playwright's default timeout for the page's actions and waits. */
  timeout?: number;
  /** Where the page's problems collect (a new list when not given). */
  problems?: string[];
}

/** Starts the host and the browser; a failure half-way stops what was started. */
export async function openUiSession(options: UiSessionOptions): Promise<UiSession> {
  await mkdir(RESULTS, { recursive: true });
  const dataDir = await makeTempDir(`keydesk-e2e-${options.name}-`);
  const started: Partial<UiSession> = { dataDir };
  try {
    const hostOptions = typeof options.host === "function" ? options.host(dataDir) : options.host;
    started.host = await startWebHost({ dataDir, ...hostOptions });
    started.browser = await launchChromium();
    const context = await started.browser.newContext(options.context);
    started.context = context;
    if (options.clipboard) {
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: started.host.baseUrl });
    }
    const page = await context.newPage();
    const problems = options.problems ?? [];
    watchPageErrors(page, problems);
    page.setDefaultTimeout(options.timeout ?? 10_000);
    return { ...(started as UiSession), page, problems };
  } catch (error) {
    await closeUiSession(started);
    throw error;
  }
}

/** Closes the browser, stops the host (which must exit cleanly) and removes the data dir. */
export async function closeUiSession(session: Partial<UiSession> | undefined): Promise<void> {
  if (!session) return;
  await session.browser?.close();
  if (session.host) assert.equal((await session.host.stop()).code, 0, "the browser host exits cleanly");
  if (session.dataDir) await removeDir(session.dataDir);
}
