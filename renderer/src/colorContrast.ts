// WCAG 2 contrast of theme colours: plain functions on hex colours, for the theme's choice of
// text colours (and its unit tests).

/**
 * [r, g, b] in 0..255 of "#rgb" or "#rrggbb"; throws on anything else (theme colours are hex).
 * @internal Exported for tests.
 */
export function parseHex(hex: string): [number, number, number] {
  const match = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex.trim());
  if (!match) throw new Error(`not a hex colour: ${hex}`);
  const digits =
    (match[1] as string).length === 3
      ? [...(match[1] as string)].map((d) => d + d).join("")
      : (match[1] as string);
  return [0, 2, 4].map((at) => Number.parseInt(digits.slice(at, at + 2), 16)) as [number, number, number];
}

function toHex(rgb: readonly number[]): string {
  return `#${rgb
    .map((channel) =>
      Math.round(Math.min(255, Math.max(0, channel)))
        .toString(16)
        .padStart(2, "0"),
    )
    .join("")}`;
}

/** WCAG relative luminance of a hex colour. */
function luminance(hex: string): number {
  const [r, g, b] = parseHex(hex).map((channel) => {
    const c = channel / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * WCAG contrast ratio of two hex colours (1 to 21).
 * @internal Exported for tests.
 */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** `hex` mixed towards black by `amount` (0 to 1). */
export function darkenHex(hex: string, amount: number): string {
  return toHex(parseHex(hex).map((channel) => channel * (1 - amount)));
}

/** `hex` mixed towards white by `amount` (0 to 1). */
export function lightenHex(hex: string, amount: number): string {
  return toHex(parseHex(hex).map((channel) => channel + (255 - channel) * amount));
}

/** The WCAG AA minimum for normal text. */
const AA_TEXT = 4.5;

/**
 * The first of `candidates` that reaches `minimum` against every background; else whichever of
 * black and white contrasts most with the worst of them (one of the two always does better).
 */
export function readableOn(
  backgrounds: readonly string[],
  candidates: readonly string[],
  minimum = AA_TEXT,
): string {
  const worst = (text: string) => Math.min(...backgrounds.map((bg) => contrastRatio(text, bg)));
  const found = candidates.find((text) => worst(text) >= minimum);
  if (found) return found;
  return worst("#000000") >= worst("#ffffff") ? "#000000" : "#ffffff";
}
