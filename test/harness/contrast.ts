import type { Page } from "playwright-core";

/** Components that paint their own background or colour behind their text. */
export const FILLED_COMPONENTS = [
  ".mantine-Alert-root",
  ".mantine-Badge-root",
  ".mantine-Button-root",
  ".mantine-ActionIcon-root",
  ".mantine-Notification-root",
  ".mantine-Tooltip-tooltip",
  ".mantine-Tabs-tab",
].join(",");

/**
 * Every visible text inside a filled component (alerts, badges, buttons, notifications, …) under
 * `scope` whose WCAG contrast against what is really behind it is below 4.5:1 (3:1 for large
 * text), one line each. axe skips text whose background it cannot be sure of (it missed an
 * alert's title written in its own background colour): this walks up the ancestors, compositing
 * their background colours (alpha included) until an opaque one, the page's white below all.
 * Disabled controls are exempt, as in WCAG. Runs in the page.
 */
export async function lowContrastTexts(page: Page, scope = "body"): Promise<string[]> {
  await page.mouse.move(0, 0);
  await page.waitForFunction(() =>
    document.getAnimations().every((animation) => animation.playState !== "running"),
  );
  return page.evaluate(
    ({ scope, components }) => {
      type Rgba = [number, number, number, number];
      const canvas = new OffscreenCanvas(1, 1);
      const paint = canvas.getContext("2d", {
        willReadFrequently: true,
      }) as OffscreenCanvasRenderingContext2D;
      /** Any CSS colour as straight RGBA (0..255, alpha 0..1), read back from a painted pixel. */
      const rgba = (css: string): Rgba => {
        paint.clearRect(0, 0, 1, 1);
        paint.fillStyle = "rgba(0, 0, 0, 0)";
        paint.fillStyle = css;
        paint.fillRect(0, 0, 1, 1);
        const [r, g, b, a] = paint.getImageData(0, 0, 1, 1).data as unknown as number[];
        return [r as number, g as number, b as number, (a as number) / 255];
      };
      const over = (top: Rgba, below: Rgba): Rgba => {
        const a = top[3] + below[3] * (1 - top[3]);
        if (a === 0) return [0, 0, 0, 0];
        const mix = (i: 0 | 1 | 2) => (top[i] * top[3] + below[i] * below[3] * (1 - top[3])) / a;
        return [mix(0), mix(1), mix(2), a];
      };
      const luminance = ([r, g, b]: Rgba) => {
        const lin = (c: number) => {
          const s = c / 255;
          return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
        };
        return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
      };
      const ratio = (a: Rgba, b: Rgba) => {
        const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
        return (hi + 0.05) / (lo + 0.05);
      };
      /** What shows behind `element`: its and its ancestors' backgrounds, composited, on white. */
      const backdrop = (element: Element | null): Rgba => {
        const layers: Rgba[] = [];
        for (let at = element; at; at = at.parentElement) {
          const layer = rgba(getComputedStyle(at).backgroundColor);
          if (layer[3] > 0) layers.push(layer);
          if (layer[3] >= 1) break;
        }
        return layers.reduceRight<Rgba>((below, top) => over(top, below), [255, 255, 255, 1]);
      };
      const css = ([r, g, b]: Rgba) => `rgb(${Math.round(r)}, ${Math.round(g)}, ${Math.round(b)})`;
      const failures: string[] = [];
      for (const root of document.querySelectorAll(scope)) {
        for (const component of root.querySelectorAll(components)) {
          if (component.closest("[disabled], [data-disabled], [aria-disabled='true']")) continue;
          const walker = document.createTreeWalker(component, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const text = (node.textContent ?? "").trim();
            const element = node.parentElement;
            if (!text || !element) continue;
            if (!element.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
            const box = element.getBoundingClientRect();
            if (box.width === 0 || box.height === 0) continue;
            const style = getComputedStyle(element);
            const behind = backdrop(element);
            const color = over(rgba(style.color), behind);
            const size = Number.parseFloat(style.fontSize);
            const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
            const needed = large ? 3 : 4.5;
            const found = ratio(color, behind);
            if (found < needed) {
              const name =
                [...component.classList].find((c) => c.startsWith("mantine-")) ?? component.tagName;
              failures.push(
                `"${text.slice(0, 60)}" in ${name}: ${found.toFixed(2)}:1 < ${needed}:1 (${css(color)} on ${css(behind)})`,
              );
            }
          }
        }
      }
      return failures;
    },
    { scope, components: FILLED_COMPONENTS },
  );
}
