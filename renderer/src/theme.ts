import {
  Button,
  type CSSVariablesResolver,
  createTheme,
  defaultVariantColorsResolver,
  type MantineColorsTuple,
  Modal,
  Notification,
  parseThemeColor,
  type VariantColorsResolver,
} from "@mantine/core";
import { darkenHex, lightenHex, readableOn } from "./colorContrast.ts";

const WHITE = "#ffffff";

/**
 * A colour with a shade ("red.9") keeps Mantine's scheme-blind colours: in the light variant
 * it FILLS with that shade and writes in the light colour (an alert's title vanished on its own
 * background), and as outline text it is the same shade on a dark page (1.2:1). Without the shade
 * the variant takes the scheme's readable colours (see cssVariablesResolver), so every variant but
 * "filled" drops it; a filled one keeps it and writes in black or white, whichever reads.
 */
const variantColorResolver: VariantColorsResolver = (input) => {
  const parsed = parseThemeColor({ color: input.color ?? input.theme.primaryColor, theme: input.theme });
  if (!parsed.isThemeColor) return defaultVariantColorsResolver(input);
  if (parsed.shade !== undefined && input.variant !== "filled") {
    return defaultVariantColorsResolver({ ...input, color: parsed.color });
  }
  const colors = defaultVariantColorsResolver(input);
  if (input.variant !== "filled") return colors;
  const shades = input.theme.colors[parsed.color] as MantineColorsTuple;
  return {
    ...colors,
    color:
      parsed.shade === undefined
        ? `var(--kd-on-filled-${parsed.color})`
        : readableOn([shades[parsed.shade] as string], [WHITE]),
  };
};

/**
 * The colour variables of one theme colour, light scheme: text readable on the page and on its light tint.
 * @internal Exported for tests.
 */
export function lightSchemeColors(name: string, shades: MantineColorsTuple, gray: MantineColorsTuple) {
  const backgrounds = [WHITE, gray[0], gray[1], shades[1]];
  const strong = [shades[9], darkenHex(shades[9], 0.2), darkenHex(shades[9], 0.4)];
  const text = readableOn(backgrounds, [shades[8], ...strong]);
  return {
    [`--mantine-color-${name}-light-color`]: readableOn(backgrounds, strong),
    [`--mantine-color-${name}-outline`]: text,
    [`--mantine-color-${name}-text`]: text,
    [`--kd-on-filled-${name}`]: readableOn([shades[8]], [WHITE]),
  };
}

/**
 * The colour variables of one theme colour, dark scheme: text readable on the dark page and its dark tint.
 * @internal Exported for tests.
 */
export function darkSchemeColors(name: string, shades: MantineColorsTuple, dark: MantineColorsTuple) {
  const backgrounds = [dark[7], dark[6], dark[5], darkenHex(shades[9], 0.5)];
  const light = [shades[4], shades[3], shades[2], shades[1], shades[0], lightenHex(shades[0], 0.5)];
  return {
    [`--mantine-color-${name}-light-color`]: readableOn(backgrounds, light.slice(4)),
    [`--mantine-color-${name}-outline`]: readableOn(backgrounds, light),
    [`--mantine-color-${name}-text`]: readableOn(backgrounds, light),
    [`--kd-on-filled-${name}`]: readableOn([shades[8]], [WHITE]),
  };
}

/** Every theme colour's text colours, per scheme, checked against WCAG AA (see the two functions above). */
export const cssVariablesResolver: CSSVariablesResolver = (resolved) => {
  const light: Record<string, string> = {};
  const dark: Record<string, string> = {};
  const { gray, dark: darkShades } = resolved.colors;
  for (const [name, shades] of Object.entries(resolved.colors)) {
    if (!Array.isArray(shades) || !shades.every((shade) => /^#[0-9a-f]{6}$/i.test(shade))) continue;
    Object.assign(light, lightSchemeColors(name, shades, gray));
    Object.assign(dark, darkSchemeColors(name, shades, darkShades));
  }
  return { variables: {}, light, dark };
};

/**
 * Mantine's defaults with darker shades where the default ones miss WCAG AA contrast (white
 * text on blue.6, dimmed text), text colours chosen for contrast in both schemes, and a labelled
 * close button on every dialog and notification.
 */
export const theme = createTheme({
  primaryColor: "blue",
  primaryShade: { light: 8, dark: 8 },
  variantColorResolver,
  components: {
    // A loading button's label fades where it is: Mantine also slides it down, and a quick load
    // (Refresh of a few hundred keys: under 40 ms) left it caught half a line low, then back.
    Button: Button.extend({ styles: { inner: { transform: "none" } } }),
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { "aria-label": "Close dialog" } } }),
    Notification: Notification.extend({
      defaultProps: { closeButtonProps: { "aria-label": "Close notification" } },
    }),
  },
});
