import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Page } from "playwright-core";
import { chromiumMissing, skipWithoutChromium } from "../harness/chromium.ts";
import { everyPage } from "../harness/keyPages.ts";
import { closeUiSession, openUiSession, RESULTS, type UiSession } from "../harness/uiSession.ts";
import { callBridge, type WebHostProcess } from "../harness/webHostProcess.ts";

/**
 * The key lifecycle in Chromium through the browser host: roll a key (successor shown once, Copy,
 * the old key retiring), bulk disable with shift-click and one confirmation, and export as a file
 * the browser downloads (its content never in the page's JS).
 */

let session: UiSession | undefined;
let host: WebHostProcess;
let page: Page;
const pageProblems: string[] = [];

const bridge = <T = Record<string, unknown>>(method: string, args?: unknown) =>
  callBridge<T>(host, method, args ?? {});

interface Key {
  key: string;
  name: string;
  enabled: boolean;
  validTo?: string;
}

function allKeys(): Promise<Key[]> {
  return everyPage((cursor) =>
    bridge<{ keys: Key[]; nextCursor: string | null }>("keys.page", {
      accountKey: "_",
      limit: 500,
      ...(cursor !== null && { cursor }),
    }),
  );
}

const rows = () => page.getByTestId("key-row");
const row = (name: string) => rows().filter({ hasText: name });

before(async () => {
  if (chromiumMissing) return;
  session = await openUiSession({
    name: "lifecycle",
    context: {
      viewport: { width: 1440, height: 900 },
      timezoneId: "Europe/Berlin",
      acceptDownloads: true,
    },
    clipboard: true,
    problems: pageProblems,
  });
  ({ host, page } = session);
  await bridge("keys.create", { accountKey: "_", request: { name: "payments", allowedIPs: ["10.0.0.0/8"] } });
  for (let i = 1; i <= 5; i++) {
    await bridge("keys.create", { accountKey: "_", request: { name: `batch ${i}` } });
  }
  await bridge("keys.create", { accountKey: "_", request: { name: '=HYPERLINK("x")' } });
});

after(() => closeUiSession(session));

test("roll: the successor's publicApiKey once with Copy, the old key retiring in 24 h", async (t) => {
  if (skipWithoutChromium(t)) return;
  await page.goto(host.pageUrl);
  await row("payments").getByTestId("key-name").click();
  await page.getByRole("button", { name: "Roll…" }).click();
  const dialog = page.getByRole("dialog", { name: "Roll “payments”" });
  await dialog.getByRole("combobox", { name: "Old key keeps working for" }).waitFor();
  assert.equal(
    await dialog.getByRole("combobox", { name: "Old key keeps working for" }).inputValue(),
    "24 hours",
  );
  await page.screenshot({ path: join(RESULTS, "lifecycle-roll-dialog-1440x900.png") });
  await dialog.getByRole("button", { name: "Roll key" }).click();
  const shown = page.getByTestId("new-public-api-key");
  await shown.waitFor();
  const publicApiKey = (await shown.textContent()) ?? "";
  assert.match(publicApiKey, /^[0-9a-f-]{40,}$/);
  assert.match(
    (await page.getByTestId("roll-retirement").textContent()) ?? "",
    /“payments” keeps working until .* retiring/,
  );
  await page
    .getByRole("dialog", { name: "Key rolled" })
    .getByRole("button", { name: /^Copy the publicApiKey of payments \(rolled/ })
    .click();
  await page.waitForFunction(async (value) => (await navigator.clipboard.readText()) === value, publicApiKey);
  await page.screenshot({ path: join(RESULTS, "lifecycle-roll-done-1440x900.png") });
  await page.getByRole("button", { name: "Done" }).click();

  const successor = (await allKeys()).find((key) => key.name.startsWith("payments (rolled"));
  assert.ok(successor, "the successor is listed");
  await row("payments (rolled").waitFor();
  const oldValidTo = row("payments").first().getByTestId("key-valid-to");
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll('[data-testid="key-valid-to"][data-retiring="true"]')].some((cell) =>
        /retiring in (24|23) h|retiring in 1 day/.test(cell.textContent ?? ""),
      ),
    undefined,
  );
  assert.equal(await oldValidTo.getAttribute("data-retiring"), "true");
  await page.setViewportSize({ width: 800, height: 500 });
  await page.screenshot({ path: join(RESULTS, "lifecycle-keys-800x500.png") });
  await page.setViewportSize({ width: 1440, height: 900 });
});

test("bulk disable: click and shift-click select a range, one confirmation names the count, each key disabled", async (t) => {
  if (skipWithoutChromium(t)) return;
  await page.goto(host.pageUrl);
  await row("batch 2").getByTestId("key-select").click();
  await row("batch 4")
    .getByTestId("key-select")
    .click({ modifiers: ["Shift"] });
  assert.equal(await page.getByTestId("bulk-count").textContent(), "3 keys selected");
  await page.getByRole("button", { name: "Disable…" }).click();
  const confirm = page.getByRole("dialog", { name: "Disable 3 keys?" });
  await confirm.waitFor();
  await page.screenshot({ path: join(RESULTS, "lifecycle-bulk-confirm-1440x900.png") });
  await confirm.getByRole("button", { name: "Disable 3 keys" }).click();
  const result = page.getByTestId("bulk-result");
  await result.waitFor();
  assert.match((await result.textContent()) ?? "", /Disabled 3 keys of 3 keys selected/);
  await page.getByRole("button", { name: "Done" }).click();
  const states = Object.fromEntries((await allKeys()).map((key) => [key.name, key.enabled]));
  assert.deepEqual(
    [1, 2, 3, 4, 5].map((i) => states[`batch ${i}`]),
    [true, false, false, false, true],
  );

  // All matching the filter: the rest of the batch, one of them already disabled (skipped).
  await page.getByRole("textbox", { name: "Search" }).fill("batch");
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="key-row"]').length === 5);
  // Ticked as soon as the rows narrow, before the search settles and the service answers it: the
  // selection is of the filter in view and must outlive that answer.
  await page.getByTestId("key-select-loaded").click();
  assert.equal(await page.getByTestId("bulk-count").textContent(), "5 keys selected");
  await page.waitForTimeout(600); // past the search's settling (150 ms) and the service's answer
  assert.equal(await page.getByTestId("bulk-count").textContent(), "5 keys selected");
  await page.setViewportSize({ width: 800, height: 500 });
  await page.screenshot({ path: join(RESULTS, "lifecycle-bulk-bar-800x500.png") });
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.getByRole("button", { name: "Disable…" }).click();
  await page
    .getByRole("dialog", { name: "Disable 5 keys?" })
    .getByRole("button", { name: "Disable 5 keys" })
    .click();
  await page.getByTestId("bulk-result").waitFor();
  assert.match(
    (await page.getByTestId("bulk-result").textContent()) ?? "",
    /Disabled 2 keys of 5 keys selected; 3 keys already disabled/,
  );
  await page.getByRole("button", { name: "Done" }).click();
  assert.ok((await allKeys()).filter((key) => key.name.startsWith("batch")).every((key) => !key.enabled));
});

test("export: the file the browser downloads holds the keys in view, guarded, the publicApiKey only when ticked", async (t) => {
  if (skipWithoutChromium(t)) return;
  await page.goto(host.pageUrl);
  await rows().first().waitFor();
  await page.getByRole("button", { name: "Export…" }).click();
  const dialog = page.getByTestId("export-dialog");
  await dialog.waitFor();
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    dialog.getByRole("button", { name: "Export" }).click(),
  ]);
  assert.match(download.suggestedFilename(), /^keydesk-keys-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = await readFile((await download.path()) as string, "utf8");
  const lines = csv.split("\r\n");
  assert.equal(lines[0], "key,name,accountKey,permissions,allowedIPs,validFrom,validTo,enabled");
  assert.equal(lines.length, 10, "8 keys, a header and the final line end");
  assert.ok(csv.includes(`,"'=HYPERLINK(""x"")",`), "a formula-looking name is guarded and quoted");
  assert.ok(!/[0-9a-f]{32}-[0-9a-f]{8}-/.test(csv), "no publicApiKey");

  await page.getByRole("button", { name: "Export…" }).click();
  await dialog.getByText("JSON", { exact: true }).click();
  await dialog.getByRole("checkbox", { name: "Include each key's publicApiKey" }).check();
  await page.getByTestId("export-secret-warning").waitFor();
  await page.screenshot({ path: join(RESULTS, "lifecycle-export-1440x900.png") });
  const [second] = await Promise.all([
    page.waitForEvent("download"),
    dialog.getByRole("button", { name: "Export" }).click(),
  ]);
  const json = JSON.parse(await readFile((await second.path()) as string, "utf8")) as {
    apiKeys: { name: string; publicApiKey?: string }[];
  };
  assert.equal(json.apiKeys.length, 8);
  assert.ok(
    json.apiKeys.every((key) => typeof key.publicApiKey === "string" && key.publicApiKey.length > 40),
  );
  assert.deepEqual(pageProblems, []);
});
