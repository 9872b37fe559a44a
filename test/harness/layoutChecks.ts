import type { Page } from "playwright-core";

/** How far the page scrolls sideways (0 when it fits the window). */
export function pageOverflowX(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/**
 * Visible elements under `scope` whose text is cut (an ellipsis, a line clamp with more text
 * than shows, or text clipped by `overflow: hidden` without any sign) and that give no way to read all of it: no `title` on them or an ancestor, no
 * `aria-label`, no `data-tooltip` (the convention for an element wrapped in a Mantine Tooltip,
 * which adds nothing to the element until hovered). One line each, with the text cut.
 */
export function cutTextWithoutTooltip(page: Page, scope = "body"): Promise<string[]> {
  return page.evaluate((scope) => {
    const clips = (element: Element) => {
      const overflow = getComputedStyle(element).overflowX;
      return overflow === "hidden" || overflow === "clip";
    };
    const runsPastClip = (element: HTMLElement): boolean => {
      const texts = [...element.childNodes].filter(
        (node) => node.nodeType === Node.TEXT_NODE && node.textContent?.trim(),
      );
      if (texts.length === 0) return false;
      let clipper: Element | null = element;
      while (clipper && !clips(clipper)) clipper = clipper.parentElement;
      if (!clipper) return false;
      const edge = clipper.getBoundingClientRect();
      return texts.some((text) => {
        const range = document.createRange();
        range.selectNodeContents(text);
        const box = range.getBoundingClientRect();
        return box.right > edge.right + 1 || box.left < edge.left - 1;
      });
    };
    const found: string[] = [];
    for (const root of document.querySelectorAll(scope)) {
      for (const element of root.querySelectorAll<HTMLElement>("*")) {
        if (!element.textContent?.trim() || element.childElementCount > 3) continue;
        const style = getComputedStyle(element);
        const ellipsis = style.textOverflow === "ellipsis" && element.scrollWidth > element.clientWidth + 1;
        const clamped = style.webkitLineClamp !== "none" && element.scrollHeight > element.clientHeight + 1;
        // Clipped without any sign: its text runs past the edge of an ancestor (or itself) that
        // hides what overflows, such as a table cell with overflow hidden and no "…".
        const clipped = !ellipsis && runsPastClip(element);
        if (!ellipsis && !clamped && !clipped) continue;
        if (!element.checkVisibility({ visibilityProperty: true })) continue;
        // Text for screen readers only is clipped to a pixel on purpose.
        const box = element.getBoundingClientRect();
        if (box.width <= 1 || box.height <= 1) continue;
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

/**
 * Visible text inputs under `scope` whose text is cut with no way to read the rest: an empty field's
 * placeholder wider than the room inside it, or a read-only field's value (a Select's chosen
 * option, a native select's chosen option's text) wider than that room without an ellipsis and a
 * tooltip (`title` or `data-tooltip`). What a user types may scroll inside its field, so editable
 * values are not checked. Measured with the input's own font. One line each.
 */
export function cutInputText(page: Page, scope = "body"): Promise<string[]> {
  return page.evaluate((scope) => {
    const context = document.createElement("canvas").getContext("2d");
    if (!context) return ["no canvas to measure inputs with"];
    const found: string[] = [];
    for (const root of document.querySelectorAll(scope)) {
      for (const input of root.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(
        "input, textarea, select",
      )) {
        // A native select shows its chosen option's text, as a read-only field shows its value.
        const shown =
          input instanceof HTMLSelectElement
            ? (input.selectedOptions[0]?.text ?? "")
            : input.value !== ""
              ? input.readOnly
                ? input.value
                : ""
              : input.placeholder;
        if (!shown.trim()) continue;
        if (input instanceof HTMLInputElement && !["text", "search", ""].includes(input.type)) continue;
        if (!input.checkVisibility({ visibilityProperty: true })) continue;
        const style = getComputedStyle(input);
        context.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const room =
          input.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
        const needed = context.measureText(shown).width;
        if (needed <= room + 1) continue;
        const what = input.value !== "" || input instanceof HTMLSelectElement ? "value" : "placeholder";
        const readable =
          what === "value" &&
          style.textOverflow === "ellipsis" &&
          (input.hasAttribute("data-tooltip") || input.closest("[title]:not([title=''])") !== null);
        if (!readable)
          found.push(
            `${input.getAttribute("aria-label") ?? input.id ?? input.name}: ${what} "${shown}" needs ${Math.ceil(needed)}px, has ${Math.floor(room)}px`,
          );
      }
    }
    return found;
  }, scope);
}

/**
 * Boxes under `scope` that scroll sideways (their content wider than they are): what is past
 * their edge, such as a table's last columns, is off-screen until scrolled to. One line each.
 */
export function sidewaysScrollers(page: Page, scope = "body"): Promise<string[]> {
  return page.evaluate((scope) => {
    const found: string[] = [];
    for (const root of document.querySelectorAll(scope)) {
      for (const element of root.querySelectorAll<HTMLElement>("*")) {
        const overflow = getComputedStyle(element).overflowX;
        if (overflow !== "auto" && overflow !== "scroll") continue;
        if (element.scrollWidth <= element.clientWidth + 1) continue;
        if (!element.checkVisibility({ visibilityProperty: true })) continue;
        const name = element.getAttribute("data-testid") ?? [...element.classList].join(".");
        found.push(
          `${element.tagName.toLowerCase()} ${name}: ${element.scrollWidth - element.clientWidth}px past its edge`,
        );
      }
    }
    return found;
  }, scope);
}
