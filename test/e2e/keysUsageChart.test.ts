import assert from "node:assert/strict";
import { join } from "node:path";
import { atWidths } from "../harness/atWidths.ts";
import { seriousViolations } from "../harness/axe.ts";
import { request } from "../harness/keyServiceProcess.ts";
import { RESULTS } from "../harness/uiSession.ts";
import { uiSuite } from "../harness/uiSuite.ts";

/**
 * A key's usage over time in its details (issue 32), in Chromium through the browser host: after
 * App-authorized calls to the embedded service, allowed and refused calls stacked per hour (48 h)
 * and per day (30 d) with their totals in words, an empty state for a key without calls, at 1280
 * and 800 px wide, light and dark, and no page problem (a CSP violation is a console error).
 */

const {
  test,
  page,
  host,
  bridge,
  row,
  before,
  problems: pageProblems,
} = uiSuite({
  name: "keys-usage-chart",
  context: { viewport: { width: 1280, height: 900 }, timezoneId: "Europe/Berlin" },
});

before(async () => {
  const charted = await bridge<{ key: string; publicApiKey: string }>("keys.create", {
    accountKey: "_",
    request: { name: "charted backend" },
  });
  await bridge("keys.create", { accountKey: "_", request: { name: "quiet backend" } });
  const profiles = await bridge<{ kind: string; baseUrl: string }[]>("profiles.list");
  const baseUrl = profiles.find((profile) => profile.kind === "local")?.baseUrl as string;
  const call = () =>
    request(baseUrl, { path: "/2fa/2/applications", authorization: `App ${charted.publicApiKey}` });
  for (let index = 0; index < 4; index++) assert.equal((await call()).status, 200);
  // Refused while disabled: the chart stacks it on the allowed ones.
  await bridge("keys.setEnabled", { accountKey: "_", key: charted.key, enabled: false });
  assert.equal((await call()).status, 403);
  await bridge("keys.setEnabled", { accountKey: "_", key: charted.key, enabled: true });
});

async function openDetails(name: string) {
  await row(name)
    .getByRole("button", { name: `Details of ${name}` })
    .click();
  const panel = page.getByRole("dialog", { name: `Key “${name}”` });
  await panel.waitFor();
  // The drawer slides in: pictures and sizes are taken once it is in place.
  await page.waitForFunction(() => {
    const drawer = document.querySelector("[data-testid=key-details]")?.getBoundingClientRect();
    return drawer !== undefined && drawer.right <= window.innerWidth;
  });
  return panel;
}

async function closeDetails() {
  await page.keyboard.press("Escape");
  await page.getByRole("dialog").waitFor({ state: "hidden" });
}

test("the details chart a key's calls of the last 48 hours, allowed and refused, and of 30 days on a switch", async () => {
  await page.goto(host.pageUrl);
  await row("charted backend").waitFor();
  const panel = await openDetails("charted backend");
  const chart = panel.getByTestId("key-usage-chart");
  const summary = chart.getByTestId("key-usage-chart-summary");
  await summary.getByText("4 allowed, 1 refused in the last 48 hours").waitFor();
  const image = chart.getByRole("img", { name: "Calls per hour: 4 allowed, 1 refused in the last 48 hours" });
  await image.waitFor();
  // Recharts draws a rectangle per non-empty bar segment: this hour's allowed and refused ones.
  await image.locator(".recharts-bar-rectangle path").first().waitFor();
  assert.equal(await image.locator(".recharts-bar-rectangle path").count(), 2);
  await image.getByText("Allowed").waitFor();
  await image.getByText("Refused").waitFor();
  // The hours are the page's local time, and the axis says which (Europe/Berlin in winter: CET).
  await image.getByText(/^Hour \((CET|GMT\+1)\)$/).waitFor();
  await chart.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(RESULTS, "keys-usage-chart-1280.png") });
  assert.deepEqual(await seriousViolations(page, "body"), [], "axe on the details panel with its chart");

  await chart.getByText("30 d").click();
  await summary.getByText("4 allowed, 1 refused in the last 30 days").waitFor();
  await chart.getByRole("img", { name: "Calls per day: 4 allowed, 1 refused in the last 30 days" }).waitFor();
  await chart.getByText("Day (UTC)").waitFor();

  await image.waitFor({ state: "detached" });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.screenshot({ path: join(RESULTS, "keys-usage-chart-1280-dark.png") });
  assert.deepEqual(await seriousViolations(page, "body"), [], "axe on the chart in the dark theme");
  await page.emulateMedia({ colorScheme: "light" });
  await closeDetails();
  assert.deepEqual(pageProblems, []);
});

test("a key without calls says so instead of an empty chart", async () => {
  const panel = await openDetails("quiet backend");
  assert.equal(
    await panel.getByTestId("key-usage-chart-empty").textContent(),
    "No calls in the last 30 days",
  );
  assert.equal(await panel.getByTestId("key-usage-chart").count(), 0);
  await closeDetails();
  assert.deepEqual(pageProblems, []);
});

test("at 800 px wide the drawer with its chart scrolls no sideways and the period switch stays in reach", async () => {
  await page.setViewportSize({ width: 800, height: 700 });
  const panel = await openDetails("charted backend");
  const chart = panel.getByTestId("key-usage-chart");
  await chart.getByRole("img").locator(".recharts-bar-rectangle path").first().waitFor();
  const widths = await page.evaluate(() => {
    const body = document
      .querySelector("[data-testid=key-details]")
      ?.closest(".mantine-Drawer-body") as HTMLElement;
    const svg = document.querySelector("[data-testid=key-usage-chart] svg")?.getBoundingClientRect();
    const drawer = document.querySelector("[data-testid=key-details]")?.getBoundingClientRect();
    return {
      overflow: body.scrollWidth - body.clientWidth,
      svgRight: svg?.right ?? Number.POSITIVE_INFINITY,
      drawerRight: drawer?.right ?? 0,
      svgWidth: svg?.width ?? 0,
    };
  });
  assert.equal(widths.overflow, 0);
  assert.ok(widths.svgRight <= widths.drawerRight, JSON.stringify(widths));
  assert.ok(widths.svgWidth > 200, JSON.stringify(widths));
  await chart.getByText("30 d").click();
  await chart.getByTestId("key-usage-chart-summary").getByText("in the last 30 days").waitFor();
  await chart.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(RESULTS, "keys-usage-chart-800.png") });
  await closeDetails();
  assert.deepEqual(pageProblems, []);
});

test("the 48-hour axis names each day where it begins, its ticks apart, at 800, 1280 and 1440 px", async () => {
  await page.goto(host.pageUrl);
  await row("charted backend").waitFor();
  await atWidths(
    page,
    async (width) => {
      const panel = await openDetails("charted backend");
      const image = panel.getByTestId("key-usage-chart").getByRole("img");
      await image.locator(".recharts-bar-rectangle path").first().waitFor();
      const axis = await page.evaluate(() => {
        // The service's 48 hourly bars end with the current hour; a day begins where the local date changes.
        const hour = new Date();
        hour.setMinutes(0, 0, 0);
        const starts = Array.from({ length: 48 }, (_, i) => hour.getTime() - (47 - i) * 3600_000);
        const date = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short" });
        const dayChanges = starts.flatMap((start, i) =>
          i > 0 && new Date(start).toDateString() !== new Date(starts[i - 1] as number).toDateString()
            ? [date.format(start)]
            : [],
        );
        const ticks = [
          ...document.querySelectorAll(
            "[data-testid=key-usage-chart] .recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value",
          ),
        ]
          .filter((tick) => (tick.textContent ?? "") !== "")
          .map((tick) => {
            const box = tick.getBoundingClientRect();
            return { text: tick.textContent ?? "", left: box.left, right: box.right };
          });
        return { dayChanges, ticks };
      });
      const texts = axis.ticks.map((tick) => tick.text);
      assert.ok(axis.dayChanges.length >= 1, "48 hours hold a day change");
      for (const day of axis.dayChanges)
        assert.ok(texts.includes(day), `${width} px: "${day}" in ${JSON.stringify(texts)}`);
      assert.ok(texts.length >= 5, `${width} px: hours between the days too: ${JSON.stringify(texts)}`);
      for (let i = 1; i < axis.ticks.length; i++) {
        const [left, right] = [axis.ticks[i - 1], axis.ticks[i]] as [{ right: number }, { left: number }];
        assert.ok(left.right <= right.left, `${width} px: ticks overlap: ${JSON.stringify(axis.ticks)}`);
      }
      await image.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(RESULTS, `keys-usage-chart-48h-${width}.png`) });
      await closeDetails();
    },
    { height: 900 },
  );
  assert.deepEqual(pageProblems, []);
});
