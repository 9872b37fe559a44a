import type { Page } from "playwright-core";

/** How far the page scrolls sideways (0 when it fits the window). */
export function pageOverflowX(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/**
 * Visible elements under `scope` whose text is cut (an ellipsis or a line clamp with more text
 * than shows) and that give no way to read all of it: no `title` on them or an ancestor, no
 * `aria-label`, no `data-tooltip` (the convention for an element wrapped in a Mantine Tooltip,
 * which adds nothing to the element until hovered). One line each, with the text cut.
 */
export function cutTextWithoutTooltip(page: Page, scope = "body"): Promise<string[]> {
  return page.evaluate((scope) => {
    const found: string[] = [];
    for (const root of document.querySelectorAll(scope)) {
      for (const element of root.querySelectorAll<HTMLElement>("*")) {
        if (!element.textContent?.trim() || element.childElementCount > 3) continue;
        const style = getComputedStyle(element);
        const ellipsis = style.textOverflow === "ellipsis" && element.scrollWidth > element.clientWidth + 1;
        const clamped = style.webkitLineClamp !== "none" && element.scrollHeight > element.clientHeight + 1;
        if (!ellipsis && !clamped) continue;
        if (!element.checkVisibility({ visibilityProperty: true })) continue;
        const described =
          element.closest("[title]:not([title=''])") !== null ||
          element.closest("[data-tooltip]") !== null ||
          element.hasAttribute("aria-label");
        if (!described)
          found.push(
            `${element.tagName.toLowerCase()}.${[...element.classList].join(".")}: "${element.textContent.trim().slice(0, 80)}"`,
          );
      }
    }
    return found;
  }, scope);
}
