import assert from "node:assert/strict";
import { join } from "node:path";
import { formatApiDateTime } from "../../shared/datetime.ts";
import { seriousViolations } from "../harness/axe.ts";
import { cutInputText } from "../harness/layoutChecks.ts";
import { RESULTS } from "../harness/uiSession.ts";
import { uiSuite } from "../harness/uiSuite.ts";

/**
 * The keys table at the window sizes admins use, from the window's minimum (800×500) up, in light
 * and dark: the page never scrolls sideways, every row's actions are on screen and clickable with
 * the key's name beside them, and whatever a cell cuts off can be read in its tooltip. Forty keys
 * with realistic (long) names, every state, IP lists and validity windows. Run after a build.
 */

const SIZES = [
  [800, 500],
  [800, 600],
  [1024, 768],
  [1280, 800],
  [1440, 900],
] as const;
const DAY = 24 * 3600_000;

const {
  test,
  page,
  host,
  bridge,
  before,
  problems: pageProblems,
} = uiSuite({
  name: "keys-layout",
  context: { viewport: { width: 1280, height: 800 }, timezoneId: "Europe/Berlin" },
});

before(async () => {
  const now = Date.now();
  for (let i = 0; i < 40; i++) {
    const request: Record<string, unknown> = {
      name:
        i % 5 === 0
          ? `Payments reconciliation worker for the EU-west production cluster #${i}`
          : `Partner integration ${i}`,
      permissions: i % 3 === 0 ? ["TFA"] : ["ALL"],
    };
    if (i % 4 === 1) request.allowedIPs = ["203.0.113.0/24", "2001:db8:abcd:12::/64", "198.51.100.7"];
    if (i % 6 === 2) request.validTo = formatApiDateTime(now + 3 * DAY);
    if (i % 6 === 3) request.validTo = formatApiDateTime(now + 90 * DAY);
    if (i % 7 === 4 && !request.validTo) request.validFrom = formatApiDateTime(now + 10 * DAY);
    const created = await bridge<{ key: string }>("keys.create", { accountKey: "_", request });
    if (i % 8 === 5) await bridge("keys.setEnabled", { accountKey: "_", key: created.key, enabled: false });
  }
});

/** Whether the document scrolls sideways. */
function horizontalOverflow(): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/**
 * For every rendered row: its name and actions are inside the viewport (after scrolling the row
 * into view vertically) and the topmost element at each action's centre is that action.
 */
async function unreachableActions(): Promise<string[]> {
  // One synchronous pass in the page: each row scrolled into view and measured before the
  // virtualized table reacts to the scroll (it re-renders on the next frame).
  const { checked, problems } = await page.evaluate(() => {
    const out: string[] = [];
    const width = document.documentElement.clientWidth;
    const height = document.documentElement.clientHeight;
    const rows = [...document.querySelectorAll<HTMLElement>("[data-testid=key-row]")];
    for (const row of rows) {
      row.scrollIntoView({ block: "nearest" });
      const name = row.querySelector<HTMLElement>("[data-testid=key-name]");
      const controls = [
        ...(name ? [name] : []),
        ...row.querySelectorAll<HTMLElement>("td:last-child button, td:last-child input[role='switch']"),
      ];
      for (const control of controls) {
        // The switch's input is visually hidden: its track is what a person clicks.
        const target =
          control.getAttribute("role") === "switch"
            ? (control.closest(".mantine-Switch-root")?.querySelector<HTMLElement>(".mantine-Switch-track") ??
              control)
            : control;
        const box = target.getBoundingClientRect();
        const label = control.getAttribute("aria-label") ?? control.textContent ?? "?";
        if (box.width === 0 || box.left < 0 || box.top < 0 || box.right > width || box.bottom > height) {
          out.push(
            `${label}: outside the viewport (${Math.round(box.left)}..${Math.round(box.right)} of ${width})`,
          );
          continue;
        }
        const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        if (!hit || !(target.contains(hit) || control.contains(hit) || hit.contains(control))) {
          out.push(`${label}: covered by ${hit?.outerHTML.slice(0, 80) ?? "nothing"}`);
        }
      }
    }
    return { checked: rows.length, problems: out };
  });
  assert.ok(checked >= 4, "rows are shown");
  return problems;
}

/** Elements of the table whose text is cut off without a tooltip on them or their cell. */
function cutWithoutTooltip(): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const table = document.querySelector("[data-testid=key-list]");
    for (const element of table?.querySelectorAll<HTMLElement>("th, td, td *") ?? []) {
      if (element.scrollWidth <= element.clientWidth + 1 || !element.textContent?.trim()) continue;
      if (element.closest("[title]")) continue;
      out.push(`${element.tagName.toLowerCase()} "${element.textContent?.slice(0, 40)}"`);
    }
    return out;
  });
}

/**
 * States, validities and times that do not read whole (cut short or clamped), whatever their
 * tooltip says: an admin reads them in the row. And the names cut at this width.
 */
function cutStatesAndTimes(): Promise<{ cut: string[]; cutNames: string[] }> {
  return page.evaluate(() => {
    const cut: string[] = [];
    const selectors = ["key-state", "key-valid-to", "key-last-used", "key-created"];
    for (const element of document.querySelectorAll<HTMLElement>(
      selectors.map((id) => `[data-testid=${id}]`).join(","),
    )) {
      const cell = element.closest("td") as HTMLElement;
      const box = element.getBoundingClientRect();
      const cellBox = cell.getBoundingClientRect();
      const clipped =
        element.scrollWidth > element.clientWidth + 1 ||
        element.scrollHeight > element.clientHeight + 1 ||
        box.right > cellBox.right + 1 ||
        box.bottom > cellBox.bottom + 1;
      if (clipped) cut.push(`${element.dataset.testid} "${element.textContent}"`);
      // One line ("expires in 3 days" broken over two reads as two things).
      if (element.dataset.testid !== "key-state" && element.getClientRects().length > 0) {
        const lineHeight = Number.parseFloat(getComputedStyle(element).lineHeight);
        if (box.height > lineHeight * 1.5)
          cut.push(`${element.dataset.testid} "${element.textContent}" on two lines`);
      }
    }
    const cutNames = [...document.querySelectorAll<HTMLElement>("[data-testid=key-name]")]
      .filter((name) => name.scrollHeight > name.clientHeight + 1 || name.scrollWidth > name.clientWidth + 1)
      .map((name) => name.textContent ?? "");
    return { cut, cutNames };
  });
}

/** Rows wholly on screen once the page is scrolled to put the table under the fixed header. */
function rowsOnScreenAtTable(): Promise<number> {
  return page.evaluate(() => {
    const header = document.querySelector<HTMLElement>("[data-app-header]")?.getBoundingClientRect();
    const table = document.querySelector<HTMLElement>(".kd-keys-scroll");
    if (!header || !table) return 0;
    window.scrollTo(0, table.getBoundingClientRect().top + window.scrollY - header.bottom);
    const top = header.bottom;
    return [...document.querySelectorAll<HTMLElement>("[data-testid=key-row]")].filter((row) => {
      const box = row.getBoundingClientRect();
      return box.top >= top && box.bottom <= window.innerHeight;
    }).length;
  });
}

/**
 * Text inside filled components (badges, buttons, the switch's thumb aside) whose contrast with
 * its own background is under 4.5:1: axe skips text on some backgrounds, this does not.
 */
function lowContrastText(): Promise<string[]> {
  return page.evaluate(() => {
    const rgb = (color: string) => (color.match(/[\d.]+/g) ?? []).map(Number) as number[];
    const luminance = ([r = 0, g = 0, b = 0]: number[]) => {
      const channel = (c: number) => {
        const s = c / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const background = (element: Element | null): number[] => {
      for (let at = element; at; at = at.parentElement) {
        const color = rgb(getComputedStyle(at).backgroundColor);
        if (color.length >= 3 && (color[3] ?? 1) > 0.5) return color;
      }
      return [255, 255, 255];
    };
    const out: string[] = [];
    const filled = document.querySelectorAll<HTMLElement>(
      "[data-testid=key-list] .mantine-Badge-root, [data-testid=key-list] .mantine-Button-root, main .mantine-Button-root",
    );
    for (const element of filled) {
      if (!element.textContent?.trim()) continue;
      const label = element.querySelector(".mantine-Badge-label, .mantine-Button-label") ?? element;
      const fore = luminance(rgb(getComputedStyle(label).color));
      const back = luminance(background(element));
      const ratio = (Math.max(fore, back) + 0.05) / (Math.min(fore, back) + 0.05);
      if (ratio < 4.5) out.push(`"${element.textContent.trim()}" ${ratio.toFixed(2)}:1`);
    }
    return [...new Set(out)];
  });
}

test("at 800×500 to 1440×900, light and dark: no sideways scroll, every row action reachable, cut text has a tooltip, filled text readable", async () => {
  await page.goto(host.pageUrl);
  await page.getByTestId("key-row").first().waitFor();
  // A key not valid yet says when it starts where others say when they end.
  const notYet = page
    .getByTestId("key-row")
    .filter({ has: page.getByTestId("key-state").getByText("Not yet valid") });
  assert.match(
    (await notYet.first().getByTestId("key-valid-to").textContent()) ?? "",
    /^starts in (9|10) days$/,
  );
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForFunction((s) => document.documentElement.dataset.mantineColorScheme === s, scheme);
    for (const [width, height] of SIZES) {
      await page.setViewportSize({ width, height });
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.waitForTimeout(200); // the table measures its new width
      const at = `${width}×${height} ${scheme}`;
      assert.equal(await horizontalOverflow(), 0, `${at}: the page does not scroll sideways`);
      const table = page.getByTestId("key-list");
      const tableBox = await table.boundingBox();
      assert.ok(tableBox && tableBox.x + tableBox.width <= width, `${at}: the table fits the window`);
      const header = await page.locator("[data-testid=key-list] th").allTextContents();
      assert.ok(header.includes("Name") && header.includes("State") && header.includes("Actions"), at);
      if (width >= 1024) assert.ok(header.includes("Valid to") && header.includes("Permissions"), at);
      if (width >= 1440) {
        // As docs/desktop.md says: Created from about 1440 px, also beside a desktop Chromium's
        // 15 px scroll bar (this headless one hides its scroll bars): a 1425 px page.
        await page.setViewportSize({ width: width - 15, height });
        await page.waitForTimeout(200); // the table measures its new width
        const narrower = (await table.boundingBox())?.width ?? 0;
        const heads = await page.locator("[data-testid=key-list] th").allTextContents();
        assert.ok(
          heads.some((head) => head.startsWith("Created")),
          `${at}: Created among ${heads.join(", ")} at a table of ${narrower} px`,
        );
        assert.deepEqual((await cutStatesAndTimes()).cut, [], `${at}: with Created, nothing is cut`);
        await page.screenshot({ path: join(RESULTS, `keys-layout-${width - 15}x${height}-${scheme}.png`) });
        await page.setViewportSize({ width, height });
        await page.waitForTimeout(200);
      }
      assert.deepEqual(await unreachableActions(), [], `${at}: every row action is on screen and clickable`);
      assert.deepEqual(await cutWithoutTooltip(), [], `${at}: every cut-off text has a tooltip`);
      assert.deepEqual(
        await cutInputText(page),
        [],
        `${at}: every placeholder and chosen option reads whole`,
      );
      assert.deepEqual(await lowContrastText(), [], `${at}: text in filled components is readable`);
      const { cut, cutNames } = await cutStatesAndTimes();
      assert.deepEqual(cut, [], `${at}: no state, validity or time is cut`);
      // The longest names here have 69 characters: whole (in two lines at most) where the window is wide.
      if (width >= 1280) assert.deepEqual(cutNames, [], `${at}: names read whole`);
      const headerHeight = await page
        .getByTestId("app-header")
        .evaluate((header) => (header as HTMLElement).offsetHeight);
      // Two lines at 1024 px on the Keys view: the service address is never cut (issue 32), the header wraps.
      if (width >= 1280) assert.ok(headerHeight <= 64, `${at}: the header is one line (${headerHeight} px)`);
      else assert.ok(headerHeight <= 110, `${at}: the header is two lines at most (${headerHeight} px)`);
      if (height >= 600) {
        const rows = await rowsOnScreenAtTable();
        assert.ok(rows >= 8, `${at}: the table shows ${rows} whole rows once scrolled to`);
      }
      await page.evaluate(() => window.scrollTo(0, 0));
      // Axe (seconds a run) at the narrowest and the widest: between them columns only drop.
      if (width === 800 || width === 1440)
        assert.deepEqual(await seriousViolations(page, "body"), [], `${at}: axe`);
      await page.screenshot({ path: join(RESULTS, `keys-layout-${width}x${height}-${scheme}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  assert.deepEqual(pageProblems, []);
});

test("at 800, 1280 and 1440: two long names that differ only in their last characters are told apart in the Name column", async () => {
  const base =
    "Payments reconciliation worker for the EU-west production cluster, nightly exports to the archive, shard";
  const names = [`${base} 0017`, `${base} 0018`];
  for (const name of names) await bridge("keys.create", { accountKey: "_", request: { name } });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(host.pageUrl);
  await page.getByRole("textbox", { name: "Search", exact: true }).fill("nightly exports");
  const cells = names.map((name) => page.getByRole("button", { name: `Details of ${name}`, exact: true }));
  for (const [width, height] of [
    [800, 600],
    [1280, 800],
    [1440, 900],
  ] as const) {
    await page.setViewportSize({ width, height });
    await cells[1]?.waitFor();
    // The cut is made for the column's new width on its next layout.
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll<HTMLElement>("[data-testid=key-name]")].every(
          (name) => name.scrollHeight <= name.clientHeight + 1,
        ),
      undefined,
      { timeout: 5000 },
    );
    const shown = await Promise.all(
      cells.map((cell) =>
        cell.evaluate((button) => ({
          text: button.textContent ?? "",
          whole:
            button.scrollHeight <= button.clientHeight + 1 && button.scrollWidth <= button.clientWidth + 1,
          title: button.closest("[title]")?.getAttribute("title") ?? "",
          ownTitle: button.getAttribute("title") ?? "",
        })),
      ),
    );
    const at = `${width}×${height}`;
    for (const [i, name] of names.entries()) {
      const cell = shown[i];
      assert.ok(cell, at);
      assert.ok(cell.whole, `${at}: what is shown of "${cell.text}" is not cut further`);
      assert.ok(cell.text.endsWith(name.slice(-12)), `${at}: the end shows: "${cell.text}"`);
      assert.ok(cell.text.includes("…"), `${at}: the name is cut in its middle: "${cell.text}"`);
      assert.equal(cell.title, name, `${at}: the tooltip has the whole name`);
      assert.equal(cell.ownTitle, name, `${at}: the cut name's own title is the whole name`);
    }
    assert.notEqual(shown[0]?.text, shown[1]?.text, `${at}: the two names look different`);
    await page.screenshot({ path: join(RESULTS, `keys-layout-long-names-${width}x${height}.png`) });
  }
  await page.getByRole("textbox", { name: "Search", exact: true }).fill("");
  assert.deepEqual(pageProblems, []);
});

/**
 * The lines a key's name button shows, as the layout broke them (each character's line read through
 * a Range), and the characters a line ended after (spaces are left out: a space at a break is drawn
 * on neither line).
 */
function nameLines(name: string): Promise<{ lines: string[]; endedAfter: string[]; whole: boolean }> {
  return page.getByRole("button", { name: `Details of ${name}`, exact: true }).evaluate((button) => {
    const lines: string[] = [];
    const endedAfter: string[] = [];
    let top: number | null = null;
    let previous = "";
    const walker = document.createTreeWalker(button, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? "";
      for (let index = 0; index < text.length; index++) {
        const char = text.charAt(index);
        const range = document.createRange();
        range.setStart(node, index);
        range.setEnd(node, index + 1);
        const rect = range.getClientRects()[0];
        if (char.trim() === "" || !rect) {
          if (lines.length) lines[lines.length - 1] += char;
          previous = char;
          continue;
        }
        if (top === null || Math.round(rect.top) > top) {
          if (top !== null) endedAfter.push(previous);
          lines.push("");
          top = Math.round(rect.top);
        }
        lines[lines.length - 1] += char;
        previous = char;
      }
    }
    return {
      lines: lines.map((line) => line.trim()),
      endedAfter,
      whole: button.scrollHeight <= button.clientHeight + 1 && button.scrollWidth <= button.clientWidth + 1,
    };
  });
}

test("at 800 and 1024: a name with spaces cut in a narrow Name column breaks its lines between words, not inside one", async (t) => {
  // The review's names, and longer ones with spaces that two lines of the column cannot hold.
  const names = [
    "reporting integration tests 1",
    "partner-portal staging 1",
    "reporting integration tests of the partner-portal staging cluster 1",
    "partner-portal staging deploy for the reporting integration tests 1",
  ];
  for (const name of names) await bridge("keys.create", { accountKey: "_", request: { name } });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(host.pageUrl);
  const search = page.getByRole("textbox", { name: "Search", exact: true });
  for (const [width, height] of [
    [800, 600],
    [1024, 768],
  ] as const) {
    await page.setViewportSize({ width, height });
    for (const name of names) {
      await search.fill(name);
      await page.getByRole("button", { name: `Details of ${name}`, exact: true }).waitFor();
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll<HTMLElement>("[data-testid=key-name]")].every(
            (button) => button.scrollHeight <= button.clientHeight + 1,
          ),
        undefined,
        { timeout: 5000 },
      );
      const shown = await nameLines(name);
      const at = `${width}×${height} "${name}"`;
      t.diagnostic(`${at}: ${JSON.stringify(shown.lines)}`);
      assert.ok(shown.whole, `${at}: what is shown is not cut further: ${JSON.stringify(shown.lines)}`);
      assert.ok(shown.lines.length <= 2, `${at}: ${JSON.stringify(shown.lines)}`);
      for (const [index, after] of shown.endedAfter.entries()) {
        assert.ok(
          // Between words, after a hyphen, or at the cut itself ("staging de… / ng integration").
          after.trim() === "" || after === "-" || after === "…",
          `${at}: line ${index + 1} ends inside a word: ${JSON.stringify(shown.lines)}`,
        );
      }
      // Cut or not, its end is there: what tells "… tests 1" from "… tests 2".
      assert.ok(shown.lines.join(" ").endsWith(" 1"), `${at}: ${JSON.stringify(shown.lines)}`);
      await page.screenshot({
        path: join(RESULTS, `keys-layout-name-words-${names.indexOf(name)}-${width}.png`),
      });
    }
  }
  await search.fill("");
  assert.deepEqual(pageProblems, []);
});

/** Rows wholly in the window below the fixed header and the table's head row, and the first one's name. */
function rowsInSight(): Promise<{ count: number; first: string; searchInSight: boolean }> {
  return page.evaluate(() => {
    const header = document.querySelector<HTMLElement>("[data-app-header]")?.getBoundingClientRect();
    const head = document.querySelector<HTMLElement>(".kd-keys-thead")?.getBoundingClientRect();
    const top = Math.max(header?.bottom ?? 0, head?.bottom ?? 0);
    const rows = [...document.querySelectorAll<HTMLElement>("[data-testid=key-row]")]
      .filter((row) => {
        const box = row.getBoundingClientRect();
        return box.top >= top - 1 && box.bottom <= window.innerHeight + 1;
      })
      .sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top);
    const search = document.querySelector<HTMLElement>("[role=search] input")?.getBoundingClientRect();
    return {
      count: rows.length,
      first: rows[0]?.querySelector("[data-testid=key-name]")?.textContent ?? "",
      searchInSight: search !== undefined && search.top >= (header?.bottom ?? 0),
    };
  });
}

test("at 800×600 the mouse wheel over the table scrolls the page: the filters go up and the rows fill the window", async (t) => {
  await page.setViewportSize({ width: 800, height: 600 });
  await page.goto(host.pageUrl);
  await page.getByTestId("key-row").first().waitFor();
  await page.evaluate(() => window.scrollTo(0, 0));
  const before = await rowsInSight();
  assert.ok(before.searchInSight, "the filters show at first");
  const firstRow = await page.getByTestId("key-row").first().boundingBox();
  assert.ok(firstRow, "the first row is laid out");
  await page.mouse.move(firstRow.x + 200, firstRow.y + firstRow.height / 2);
  for (let i = 0; i < 4; i++) await page.mouse.wheel(0, 240);
  // The wheel's scrolling runs after the event: settled when two frames see the same position.
  await page.waitForFunction(
    () =>
      new Promise((resolve) => {
        const at = window.scrollY;
        requestAnimationFrame(() => requestAnimationFrame(() => resolve(window.scrollY === at)));
      }),
  );
  const after = await rowsInSight();
  t.diagnostic(
    `rows in sight before the wheel ${before.count}, after ${after.count}; first "${after.first}"`,
  );
  assert.equal(after.searchInSight, false, "the page scrolled: the filters went up under the header");
  assert.notEqual(after.first, before.first, "the wheel brought other rows into sight");
  assert.ok(
    after.count >= 9 && after.count > before.count,
    `the rows fill the window under the header: ${after.count} (before the wheel ${before.count})`,
  );
  assert.equal(await horizontalOverflow(), 0);
  await page.screenshot({ path: join(RESULTS, "keys-layout-800x600-wheel.png") });
  await page.evaluate(() => window.scrollTo(0, 0));
  assert.deepEqual(pageProblems, []);
});

test("at 800 px a Refresh's label stays on its line while the keys load (it fades where it is)", async () => {
  await page.setViewportSize({ width: 800, height: 600 });
  await page.goto(host.pageUrl);
  await page.getByTestId("key-row").first().waitFor();
  const refresh = page.getByRole("button", { name: "Refresh", exact: true });
  // Each frame of the load and its transitions, from the click on: how far the label moved down.
  const lowest = await refresh.evaluate(
    (button) =>
      new Promise<number>((resolve) => {
        const label = button.querySelector<HTMLElement>(".mantine-Button-label");
        const top = () => (label?.getBoundingClientRect().top ?? 0) - button.getBoundingClientRect().top;
        const start = top();
        let lowest = 0;
        const until = performance.now() + 400;
        const frame = () => {
          lowest = Math.max(lowest, top() - start);
          if (performance.now() < until) requestAnimationFrame(frame);
          else resolve(lowest);
        };
        (button as HTMLButtonElement).click();
        requestAnimationFrame(frame);
      }),
  );
  assert.ok(lowest <= 1, `the label went ${lowest.toFixed(1)} px down during the load`);
  await page.screenshot({
    path: join(RESULTS, "keys-layout-800x600-refresh.png"),
    clip: { x: 0, y: 0, width: 800, height: 220 },
  });
  assert.deepEqual(pageProblems, []);
});
