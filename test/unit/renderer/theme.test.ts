import assert from "node:assert/strict";
import { test } from "node:test";
import {
  DEFAULT_THEME,
  type MantineColorsTuple,
  mergeMantineTheme,
  type VariantColorsResolver,
} from "@mantine/core";
import { contrastRatio, darkenHex, parseHex, readableOn } from "../../../renderer/src/colorContrast.ts";
import { darkSchemeColors, lightSchemeColors, theme } from "../../../renderer/src/theme.ts";

const colors = DEFAULT_THEME.colors as Record<string, MantineColorsTuple>;
const gray = colors.gray as MantineColorsTuple;
const dark = colors.dark as MantineColorsTuple;

test("contrastRatio is WCAG's: 21 for black on white, 1 for a colour on itself, the same either way round", () => {
  assert.equal(contrastRatio("#000000", "#ffffff"), 21);
  assert.equal(contrastRatio("#2b8a3e", "#2b8a3e"), 1);
  assert.equal(
    contrastRatio("#c92a2a", "#242424").toFixed(2),
    contrastRatio("#242424", "#c92a2a").toFixed(2),
  );
  assert.equal(contrastRatio("#777", "#ffffff").toFixed(2), "4.48");
  assert.deepEqual(parseHex("#0f0"), [0, 255, 0]);
  assert.throws(() => parseHex("rgb(0, 0, 0)"), /not a hex colour/);
  assert.equal(darkenHex("#ffffff", 0.5), "#808080");
});

test("readableOn takes the first candidate readable on every background, else black or white", () => {
  assert.equal(readableOn(["#ffffff"], ["#aaaaaa", "#333333"]), "#333333");
  assert.equal(readableOn(["#ffffff", "#000000"], ["#777777"]), "#000000");
  assert.equal(readableOn(["#2b8a3e"], ["#ffffff"]), "#000000", "white on green.9 is 4.4:1");
});

test("every theme colour's text reaches 4.5:1 on the page, its tint and its filled background, in both schemes", () => {
  const failures: string[] = [];
  const check = (what: string, text: string, background: string) => {
    const ratio = contrastRatio(text, background);
    if (ratio < 4.5) failures.push(`${what}: ${text} on ${background} is ${ratio.toFixed(2)}:1`);
  };
  for (const [name, shades] of Object.entries(colors)) {
    const light = lightSchemeColors(name, shades, gray);
    for (const background of ["#ffffff", shades[1], gray[0]]) {
      check(
        `${name} light-color (light)`,
        light[`--mantine-color-${name}-light-color`] as string,
        background,
      );
      check(`${name} outline (light)`, light[`--mantine-color-${name}-outline`] as string, background);
    }
    check(`${name} on filled (light)`, light[`--kd-on-filled-${name}`] as string, shades[8]);
    const darkScheme = darkSchemeColors(name, shades, dark);
    for (const background of [dark[7], dark[6], darkenHex(shades[9], 0.5)]) {
      check(
        `${name} light-color (dark)`,
        darkScheme[`--mantine-color-${name}-light-color`] as string,
        background,
      );
      check(`${name} outline (dark)`, darkScheme[`--mantine-color-${name}-outline`] as string, background);
    }
    check(`${name} on filled (dark)`, darkScheme[`--kd-on-filled-${name}`] as string, shades[8]);
  }
  assert.deepEqual(failures, []);
});

test("the colours that failed before: gray outline on the dark page, red on the dark page", () => {
  assert.ok(contrastRatio(gray[8], dark[6]) < 1.5, "gray.8 (the LOCAL badge) was 1.18:1");
  const grayOutline = darkSchemeColors("gray", gray, dark)["--mantine-color-gray-outline"] as string;
  assert.ok(contrastRatio(grayOutline, dark[6]) >= 4.5);
  const red = colors.red as MantineColorsTuple;
  const redOutline = darkSchemeColors("red", red, dark)["--mantine-color-red-outline"] as string;
  assert.ok(contrastRatio(redOutline, dark[7]) >= 4.5, "Remove link was 2.5:1");
});

test("a shaded colour keeps the scheme's readable colours except when filled, where it writes in black or white", () => {
  const merged = mergeMantineTheme(DEFAULT_THEME, theme);
  const resolve = (color: string, variant: string) =>
    (merged.variantColorResolver as VariantColorsResolver)({ color, variant, theme: merged });
  // The light alert of red.9 was filled with red.9 and titled in red: its title vanished.
  assert.deepEqual(resolve("red.9", "light"), resolve("red", "light"));
  assert.equal(resolve("red.9", "light").background, "var(--mantine-color-red-light)");
  assert.equal(resolve("gray.8", "outline").color, "var(--mantine-color-gray-outline)");
  assert.equal(resolve("red.9", "filled").background, "var(--mantine-color-red-9)");
  assert.equal(resolve("red.9", "filled").color, "#ffffff");
  assert.equal(resolve("green", "filled").color, "var(--kd-on-filled-green)");
});
