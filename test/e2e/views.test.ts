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
import { type SeededConsole, seedConsole } from "../harness/consoleSeed.ts";
import { lowContrastTexts } from "../harness/contrast.ts";
import {
  addAccount,
  makeTempDir,
  REPO_ROOT,
  removeDir,
  type ServeProcess,
  startServe,
} from "../harness/keyServiceProcess.ts";
import { cutTextWithoutTooltip, pageOverflowX } from "../harness/layoutChecks.ts";
import { startWebHost, type WebHostProcess } from "../harness/webHostProcess.ts";

/**
 * Every view of the console, seeded as an admin has it (about 40 keys, two sub-accounts, PINs, a
 * sync link with a conflict), at the window's minimum 800×500 and at 1024×768, 1280×800 and
 * 1440×900, in the light and the dark scheme, in one Chromium page resized between sizes: the page
 * never scrolls sideways, no text is cut without a way to read it whole, axe finds nothing serious
 * and the text inside filled components (alerts, badges, buttons, …) reaches WCAG AA contrast.
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
const REMOTE_USER = { username: "team-admin", password: "team-password-1" };

let dataDir: string;
let remoteDir: string;
let host: WebHostProcess;
let remote: ServeProcess;
let browser: Browser;
let page: Page;
let seeded: SeededConsole | undefined;
const problems: string[] = [];

before(async () => {
  if (chromiumMissing) return;
  await mkdir(SHOTS, { recursive: true });
  dataDir = await makeTempDir("keydesk-e2e-views-");
  remoteDir = await makeTempDir("keydesk-e2e-views-remote-");
  await addAccount(remoteDir, REMOTE_USER.username, REMOTE_USER.password);
  remote = await startServe({ dataDir: remoteDir, env: { KEY_SERVICE_LOG_LEVEL: "warn" } });
  host = await startWebHost({ dataDir });
  seeded = await seedConsole(host, remote, REMOTE_USER);
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  page.setDefaultTimeout(10_000);
  watchPageErrors(page, problems);
  await page.goto(host.pageUrl);
  await page.getByTestId("service-status").waitFor({ timeout: 15_000 });
});

after(async () => {
  await browser?.close();
  if (host) assert.equal((await host.stop()).code, 0);
  if (remote) assert.equal((await remote.stop("SIGTERM")).code, 0);
  if (dataDir) await removeDir(dataDir);
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
async function findings(where: string, scope: string): Promise<string[]> {
  const found: string[] = [];
  const overflow = await pageOverflowX(page);
  if (overflow > 0) found.push(`${where}: the page scrolls sideways by ${overflow}px`);
  for (const cut of await cutTextWithoutTooltip(page, scope))
    found.push(`${where}: cut without a tooltip: ${cut}`);
  for (const violation of await seriousViolations(page, scope)) found.push(`${where}: axe: ${violation}`);
  for (const low of await lowContrastTexts(page, scope)) found.push(`${where}: contrast: ${low}`);
  return found;
}

test("every view fits every window size in both schemes, with no text cut without a tooltip and readable contrast", async (t) => {
  if (skipWithoutChromium(t)) return;
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
        const here = await findings(where, "body");
        // KEYS-VIEW: the keys table is being reworked in its own branch (issue 13); its findings
        // are reported here but fail the test only once that work is merged.
        if (view.file === "keys") {
          if (here.length > 0) t.diagnostic(here.join("\n"));
        } else {
          found.push(...here);
        }
        await page.screenshot({
          path: join(SHOTS, `${view.file}-${width}x${height}-${scheme}.png`),
          fullPage: true,
        });
      }
    }
  }
  assert.deepEqual(found, []);
  assert.deepEqual(problems, []);
});
