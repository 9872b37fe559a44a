import { AxeBuilder } from "@axe-core/playwright";
import type { Page } from "playwright-core";

/**
 * The serious and critical axe violations inside `selector`, one line each (rule, help, nodes);
 * waits for running animations first, since a dialog still fading in mixes its colours with the page,
 * and moves the pointer away from whatever it hovers.
 */
export async function seriousViolations(page: Page, selector: string): Promise<string[]> {
  // A hovered button shows its hover colours: move the pointer out of the way.
  await page.mouse.move(0, 0);
  // A transition starts a frame or two after the click that opened a dialog: let it start, then end.
  await page.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
  );
  await page.waitForFunction(() =>
    document.getAnimations().every((animation) => animation.playState !== "running"),
  );
  // Only violations are read: axe then skips building a unique selector for every node that
  // passed (its documented cost on large pages), and the violations it reports are the same.
  const results = await new AxeBuilder({ page })
    .include(selector)
    .options({ resultTypes: ["violations"] })
    .analyze();
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id}: ${violation.help}: ${violation.nodes
          .map((node) => `${node.html} (${node.failureSummary ?? ""})`)
          .join(" | ")}`,
    );
}
