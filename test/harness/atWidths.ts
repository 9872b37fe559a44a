import type { Page } from "playwright-core";

/** The window widths a view is checked at: the smallest the app supports, and two common desktops. */
const WIDTHS = [800, 1280, 1440] as const;

/** 800 px wide is the smallest window the app supports, 800×600; the desktops are 900 high. */
const heightOf = (width: number) => (width === 800 ? 600 : 900);

/**
 * Runs `check` with the window at 800, 1280 and 1440 px in turn (800×600 and ×900, or `height`
 * for all), then gives the window back the size it had, so the test goes on as it began.
 */
export async function atWidths(
  page: Page,
  check: (width: number) => Promise<unknown>,
  options: { height?: number } = {},
): Promise<void> {
  const before = page.viewportSize();
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: options.height ?? heightOf(width) });
    await check(width);
  }
  if (before) await page.setViewportSize(before);
}
