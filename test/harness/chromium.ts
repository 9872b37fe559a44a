import { existsSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";
import { withheld } from "./withheld.ts";

/** Debian's Chromium, driven by playwright-core: never a downloaded browser. */

export const CHROMIUM = "/usr/bin/chromium";

/** Without the background-networking flags Chromium keeps dialing out, which this network refuses. */
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Why the browser tests cannot run here, or undefined when they can. */
export const chromiumMissing =
  withheld("chromium") ??
  (existsSync(CHROMIUM) ? undefined : `no Chromium at ${CHROMIUM} (apt-get install chromium)`);

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** Collects the page's console errors and uncaught exceptions into `problems` (a test asserts it stays empty). */
export function watchPageErrors(page: Page, problems: string[]): void {
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(String(error)));
}
