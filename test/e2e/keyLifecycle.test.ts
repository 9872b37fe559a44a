import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { formatApiDateTime, parseApiDateTime } from "../../shared/datetime.ts";
import { watchPageErrors } from "../harness/chromium.ts";
import { RESULTS, type UiSession } from "../harness/uiSession.ts";
import { uiSuite } from "../harness/uiSuite.ts";

/**
 * The key lifecycle in Chromium through the browser host: roll a key (the new key under the name,
 * shown once with Copy, its end chosen; the old key renamed and retiring in every window, linked
 * to its successor both ways), bulk disable with shift-click and one confirmation, and export as a file
 * the browser downloads (its content never in the page's JS).
 */

interface Key {
  key: string;
  name: string;
  enabled: boolean;
  validTo?: string;
}

const {
  test,
  session,
  page,
  host,
  bridge,
  allKeys,
  rows,
  row,
  problems: pageProblems,
  before,
} = uiSuite({
  name: "lifecycle",
  context: {
    viewport: { width: 1440, height: 900 },
    timezoneId: "Europe/Berlin",
    acceptDownloads: true,
  },
  clipboard: true,
});

before(async () => {
  await bridge("keys.create", { accountKey: "_", request: { name: "payments", allowedIPs: ["10.0.0.0/8"] } });
  for (let i = 1; i <= 5; i++) {
    await bridge("keys.create", { accountKey: "_", request: { name: `batch ${i}` } });
  }
  await bridge("keys.create", { accountKey: "_", request: { name: '=HYPERLINK("x")' } });
});

const today = () => new Date().toISOString().slice(0, 10);
/** The pattern of a roll's mark made today (to the second, UTC), for a RegExp's source. */
/** A key rolled with 24 hours' grace, minutes ago: one wording everywhere (not "24 h" in one place). */
const RETIRING = /^retiring in 1 day$/;
/** The Valid to cell's text without its warning sign (decoration before the words). */
const wordsOf = (text: string | null) => (text ?? "").replace(/^⚠\s*/, "");
const markToday = () => `\\(rolled ${today()} \\d{2}:\\d{2}:\\d{2} UTC\\)`;
const nameCell = (target: Page, name: string) =>
  target.getByTestId("key-name").filter({ hasText: new RegExp(`^${name.replace(/[()]/g, "\\$&")}$`) });

test("roll: the new key takes the name, the old key is renamed and retiring, the publicApiKey once with Copy", async () => {
  await page.goto(host.pageUrl);
  const original = (await allKeys()).find((key) => key.name === "payments");
  assert.ok(original);
  await row("payments").getByTestId("key-name").click();
  await page.getByRole("button", { name: "Roll…" }).click();
  const dialog = page.getByRole("dialog", { name: "Roll “payments”" });
  await dialog.getByRole("combobox", { name: "Old key keeps working for" }).waitFor();
  assert.equal(
    await dialog.getByRole("combobox", { name: "Old key keeps working for" }).inputValue(),
    "24 hours",
  );
  assert.equal(await dialog.getByTestId("roll-ends").textContent(), "No end: the key never expires.");
  assert.equal(await dialog.getByTestId("roll-end-why").count(), 0, "the old key has no end to explain");
  await page.screenshot({ path: join(RESULTS, "lifecycle-roll-dialog-1440x900.png") });
  await dialog.getByRole("button", { name: "Roll key" }).click();
  const shown = page.getByTestId("new-public-api-key");
  await shown.waitFor();
  const publicApiKey = (await shown.textContent()) ?? "";
  assert.match(publicApiKey, /^[0-9a-f-]{40,}$/);
  const retirementLine = (await page.getByTestId("roll-retirement").textContent()) ?? "";
  assert.match(
    retirementLine,
    new RegExp(
      `^The old key, now “payments ${markToday()}”, is (retiring in [^:]+): it keeps working until .*, then stops\\.$`,
    ),
  );
  assert.match(/is (retiring in [^:]+):/.exec(retirementLine)?.[1] ?? "", RETIRING, "the dialog's wording");
  await page
    .getByRole("dialog", { name: "Key rolled" })
    .getByRole("button", { name: "Copy the publicApiKey of payments", exact: true })
    .click();
  await page.waitForFunction(async (value) => (await navigator.clipboard.readText()) === value, publicApiKey);
  await page.screenshot({ path: join(RESULTS, "lifecycle-roll-done-1440x900.png") });
  await page.getByRole("button", { name: "Done" }).click();

  const keys = await allKeys();
  const successor = keys.find((key) => key.name === "payments");
  assert.ok(successor && successor.key !== original.key, "the new key is found by the old name");
  const oldName = keys.find((key) => key.key === original.key)?.name ?? "";
  assert.match(oldName, new RegExp(`^payments ${markToday()}$`));
  const oldValidTo = nameCell(page, oldName).locator("xpath=ancestor::tr").getByTestId("key-valid-to");
  await oldValidTo.waitFor();
  assert.match(wordsOf(await oldValidTo.textContent()), RETIRING, "the table says it as the roll dialog did");
  assert.equal(await oldValidTo.getAttribute("data-retiring"), "true");
  // The details' badge says it as the row does.
  await nameCell(page, oldName).click();
  const badge = page.getByTestId("key-details").getByTestId("key-retiring");
  await badge.waitFor();
  assert.equal(await badge.textContent(), wordsOf(await oldValidTo.textContent()));
  await page.keyboard.press("Escape");
  await badge.waitFor({ state: "detached" });
  const newValidTo = nameCell(page, "payments").locator("xpath=ancestor::tr").getByTestId("key-valid-to");
  assert.equal(await newValidTo.getAttribute("data-retiring"), "false");
  await page.setViewportSize({ width: 800, height: 500 });
  await page.screenshot({ path: join(RESULTS, "lifecycle-keys-800x500.png") });
  await page.setViewportSize({ width: 1440, height: 900 });
});

test("a key rolled by another admin is retiring in a fresh window, and the details link it and its successor both ways", async () => {
  const old = await bridge<Key>("keys.create", { accountKey: "_", request: { name: "ledger" } });
  // Rolled through the service, not by this browser: nothing of it is in any page's storage.
  const rolled = await bridge<{ successor: Key; old: Key }>("keys.roll", {
    accountKey: "_",
    key: old.key,
    graceMinutes: 24 * 60,
  });
  const rolledName = rolled.old.name;
  assert.match(rolledName, new RegExp(`^ledger ${markToday()}$`));
  const other = await (session as UiSession).browser.newContext({
    viewport: { width: 1280, height: 800 },
    timezoneId: "Europe/Berlin",
  });
  try {
    const fresh = await other.newPage();
    watchPageErrors(fresh, pageProblems);
    await fresh.goto(host.pageUrl);
    const oldRow = nameCell(fresh, rolledName).locator("xpath=ancestor::tr");
    await oldRow.waitFor();
    await nameCell(fresh, rolledName).click();
    const details = fresh.getByTestId("key-details");
    await details.getByTestId("key-retiring").waitFor();
    // One wording in the row, the details' badge and their state line.
    assert.match(wordsOf(await oldRow.getByTestId("key-valid-to").textContent()), RETIRING);
    assert.match((await details.getByTestId("key-retiring").textContent()) ?? "", RETIRING);
    assert.match(
      (await details.getByTestId("key-state-explanation").textContent()) ?? "",
      /; retiring in 1 day \(it was rolled: its successor replaces it\)\.$/,
      "the state line says it the same way",
    );
    const replacedBy = details.getByTestId("key-replaced-by");
    await replacedBy.waitFor();
    assert.equal(await replacedBy.getByText(/Replaced by/).textContent(), "Replaced by “ledger”");
    await fresh.screenshot({ path: join(RESULTS, "lifecycle-rolled-details-1280x800.png") });
    await replacedBy.getByRole("button", { name: "Open the details of ledger", exact: true }).click();
    await fresh.getByRole("dialog", { name: "Key “ledger”" }).waitFor();
    const replaces = fresh.getByTestId("key-details").getByTestId("key-replaces");
    await replaces.waitFor();
    assert.equal(await replaces.getByText(/Replaces/).textContent(), `Replaces “${rolledName}”`);
    assert.equal(await fresh.getByTestId("key-details").getByTestId("key-retiring").count(), 0);
    await fresh.setViewportSize({ width: 800, height: 600 });
    await fresh.screenshot({ path: join(RESULTS, "lifecycle-successor-details-800x600.png") });
    await replaces.getByRole("button", { name: `Open the details of ${rolledName}` }).click();
    await fresh.getByRole("dialog", { name: `Key “${rolledName}”` }).waitFor();
  } finally {
    await other.close();
  }
});

/** Waits for the clock's next second: two rolls a second apart are marked apart. */
async function nextSecond(): Promise<void> {
  const second = Math.floor(Date.now() / 1000);
  while (Math.floor(Date.now() / 1000) === second) await new Promise((resolve) => setTimeout(resolve, 50));
}

test("three rolls of one key in one day: three names, and each key's details link its own successor and predecessor", async () => {
  let current = await bridge<Key>("keys.create", { accountKey: "_", request: { name: "relay" } });
  const chain: Key[] = [];
  for (let i = 0; i < 3; i++) {
    await nextSecond();
    const rolled = await bridge<{ successor: Key; old: Key }>("keys.roll", {
      accountKey: "_",
      key: current.key,
      graceMinutes: 24 * 60,
    });
    chain.push(rolled.old);
    current = rolled.successor;
  }
  chain.push(current);
  const names = chain.map((key) => key.name);
  assert.equal(new Set(names).size, 4, `four names, not two alike: ${names.join(" | ")}`);
  for (const name of names.slice(0, 3)) assert.match(name, new RegExp(`^relay ${markToday()}$`));
  assert.equal(names[3], "relay");

  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(host.pageUrl);
  const details = page.getByTestId("key-details");
  const linkText = async (testId: string) => {
    const link = details.getByTestId(testId);
    return (await link.count()) === 0 ? null : await link.getByText(/^(Replaced by|Replaces) /).textContent();
  };
  for (const [i, name] of names.entries()) {
    await nameCell(page, name).click();
    await page.getByRole("dialog", { name: `Key “${name}”` }).waitFor();
    // The links are looked up after the details open: wait for the one every key of the chain has.
    await details.getByTestId(i === 0 ? "key-replaced-by" : "key-replaces").waitFor();
    if (i > 0) await details.getByTestId("key-replaces").waitFor();
    if (i < 3) await details.getByTestId("key-replaced-by").waitFor();
    assert.equal(await linkText("key-replaced-by"), i < 3 ? `Replaced by “${names[i + 1]}”` : null, name);
    assert.equal(await linkText("key-replaces"), i > 0 ? `Replaces “${names[i - 1]}”` : null, name);
    if (i === 1) await page.screenshot({ path: join(RESULTS, "lifecycle-roll-chain-details-1280x800.png") });
    await page.keyboard.press("Escape");
    await page.getByRole("dialog", { name: `Key “${name}”` }).waitFor({ state: "hidden" });
  }
  // From the newest back along the chain by the links alone.
  await nameCell(page, "relay").click();
  for (const name of [names[2], names[1], names[0]] as string[]) {
    await details
      .getByTestId("key-replaces")
      .getByRole("button", { name: `Open the details of ${name}`, exact: true })
      .click();
    await page.getByRole("dialog", { name: `Key “${name}”` }).waitFor();
  }
  await page.setViewportSize({ width: 1440, height: 900 });
});

test("rolling a key that ends in 3 days: the new key has no end by default, says why, and takes the preset chosen", async () => {
  const DAY = 24 * 3600_000;
  const endsSoon = formatApiDateTime(Date.now() + 3 * DAY + 3600_000);
  await bridge("keys.create", { accountKey: "_", request: { name: "short-lived", validTo: endsSoon } });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(host.pageUrl);
  // The newest key is the last row ("Oldest first"), below the window at 1280×800: scrolled to.
  await rows().first().waitFor();
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await nameCell(page, "short-lived").click();
  await page.getByRole("button", { name: "Roll…" }).click();
  const dialog = page.getByRole("dialog", { name: "Roll “short-lived”" });
  const why = dialog.getByTestId("roll-end-why");
  await why.waitFor();
  assert.match((await why.textContent()) ?? "", /^The old key ends in 3 days; the new key would end with it/);
  assert.equal(await dialog.getByTestId("roll-ends").textContent(), "No end: the key never expires.");
  await page.screenshot({ path: join(RESULTS, "lifecycle-roll-end-1280x800.png") });
  await page.setViewportSize({ width: 800, height: 600 });
  await page.screenshot({ path: join(RESULTS, "lifecycle-roll-end-800x600.png") });
  await dialog.getByText("90 days", { exact: true }).click();
  assert.match((await dialog.getByTestId("roll-ends").textContent()) ?? "", /^Ends .*\(in 3 months\)$/);
  const before = Date.now();
  await dialog.getByRole("button", { name: "Roll key" }).click();
  await page.getByTestId("new-public-api-key").waitFor();
  await page.getByRole("button", { name: "Done" }).click();
  await page.setViewportSize({ width: 1440, height: 900 });
  const successor = (await allKeys()).find((key) => key.name === "short-lived");
  const end = parseApiDateTime(successor?.validTo ?? "") as number;
  assert.ok(
    end >= before + 90 * DAY - 3600_000 && end <= Date.now() + 90 * DAY + 3600_000,
    successor?.validTo,
  );
});

test("bulk disable: click and shift-click select a range, one confirmation names the count, each key disabled", async () => {
  await page.goto(host.pageUrl);
  await row("batch 2").getByTestId("key-select").click();
  // One key is "this key", not "these 1 key".
  await page.getByRole("button", { name: "Disable…" }).click();
  const one = page.getByRole("dialog", { name: "Disable 1 key?" });
  assert.match(
    (await one.getByTestId("bulk-confirm").textContent()) ?? "",
    /Every application using this key is refused .* until the key is enabled again\./,
  );
  await one.getByRole("button", { name: "Cancel" }).click();
  await one.waitFor({ state: "detached" });
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
  // The confirmation counts the keys that change, and says which do not.
  const rest = page.getByRole("dialog", { name: "Disable 2 keys?" });
  await rest.waitFor();
  assert.equal(
    await rest.getByTestId("bulk-unchanged").textContent(),
    "3 of the 5 keys selected are already disabled and left as they are.",
  );
  await rest.getByRole("button", { name: "Disable 2 keys" }).click();
  await page.getByTestId("bulk-result").waitFor();
  assert.match(
    (await page.getByTestId("bulk-result").textContent()) ?? "",
    /Disabled 2 keys of 5 keys selected; 3 keys already disabled/,
  );
  await page.getByRole("button", { name: "Done" }).click();
  assert.ok((await allKeys()).filter((key) => key.name.startsWith("batch")).every((key) => !key.enabled));
});

test("export: the file the browser downloads holds the keys in view, guarded, the publicApiKey only when ticked", async () => {
  await page.goto(host.pageUrl);
  await rows().first().waitFor();
  await page.getByRole("button", { name: "Export…" }).click();
  const dialog = page.getByTestId("export-dialog");
  await dialog.waitFor();
  await dialog
    .getByTestId("export-summary")
    .getByText(/^\d+ keys/)
    .waitFor();
  const exportedColumns = (await dialog.getByTestId("export-columns").textContent())
    ?.replace(/^Columns: /, "")
    .replace(/ \(.*$/, "");
  const exportedScope = await dialog.getByTestId("export-scope").textContent();
  const exportedSummary = await dialog.getByTestId("export-summary").textContent();
  await page.screenshot({ path: join(RESULTS, "lifecycle-export-csv-1440x900.png") });
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    dialog.getByRole("button", { name: "Export" }).click(),
  ]);
  assert.match(download.suggestedFilename(), /^keydesk-Local-owner-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = await readFile((await download.path()) as string, "utf8");
  const lines = csv.split("\r\n");
  const header =
    "key,name,accountKey,permissions,allowedIPs,validFrom,validTo,enabled,state,createdAt,lastUsedAt,lastRefusedAt";
  assert.equal(lines[0], header);
  assert.equal(exportedColumns, header.split(",").join(", "), "the dialog listed exactly the file's columns");
  assert.equal(exportedScope, "Profile Local, account owner.");
  assert.match(exportedSummary ?? "", new RegExp(`^${lines.length - 2} keys `), "the dialog said how many");
  assert.ok(
    lines
      .slice(1, -1)
      .every((line) => /,(true,Enabled|false,Disabled),\d{4}-\d{2}-\d{2}T[^,]+,,$/.test(line)),
    "each row: its state as the table says it, its creation, never used",
  );
  assert.equal(lines.length, 18, "16 keys, a header and the final line end");
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
  assert.equal(json.apiKeys.length, 16);
  assert.ok(
    json.apiKeys.every((key) => typeof key.publicApiKey === "string" && key.publicApiKey.length > 40),
  );
  assert.deepEqual(pageProblems, []);
});

test("a bulk change names its profile and account; disabling 20 or more keys asks for their number typed, of the keys it changes; an enable says which keys stay refused", async () => {
  const fleet = [];
  for (let i = 0; i < 23; i++)
    fleet.push(
      await bridge<{ key: string }>("keys.create", {
        accountKey: "_",
        request: { name: `fleet ${String(i).padStart(2, "0")}` },
      }),
    );
  // Three already disabled: the disable changes the other 20.
  for (const key of fleet.slice(0, 3))
    await bridge("keys.setEnabled", { accountKey: "_", key: key.key, enabled: false });
  const DAY = 24 * 3600_000;
  await bridge("keys.create", {
    accountKey: "_",
    request: { name: "fleet expired", validTo: formatApiDateTime(Date.now() - DAY) },
  });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(host.pageUrl);
  await page.getByRole("textbox", { name: "Search" }).fill("fleet");
  await page.getByText(/^24 of \d+ keys$/).waitFor();
  await row("fleet 00").waitFor();
  await page.getByTestId("key-select-loaded").click();
  assert.equal(await page.getByTestId("bulk-count").textContent(), "24 keys selected");
  await page.getByRole("button", { name: "Disable…" }).click();
  const confirm = page.getByRole("dialog", { name: "Disable 21 keys?" });
  await confirm.waitFor();
  assert.equal(await confirm.getByTestId("bulk-scope").textContent(), "Profile Local, account owner.");
  assert.equal(
    await confirm.getByTestId("bulk-unchanged").textContent(),
    "3 of the 24 keys selected are already disabled and left as they are.",
  );
  const disable = confirm.getByRole("button", { name: "Disable 21 keys" });
  assert.equal(await disable.isDisabled(), true, "not before the number is typed");
  const typed = confirm.getByRole("textbox", { name: /^To disable 21 keys, type the number of keys: 21$/ });
  await typed.fill("24");
  assert.equal(await disable.isDisabled(), true, "the number selected does not do");
  await typed.fill("21");
  await page.screenshot({ path: join(RESULTS, "lifecycle-bulk-typed-confirm-1280x800.png") });
  await page.setViewportSize({ width: 800, height: 600 });
  await page.screenshot({ path: join(RESULTS, "lifecycle-bulk-typed-confirm-800x600.png") });
  await page.setViewportSize({ width: 1280, height: 800 });
  await disable.click();
  await page.getByTestId("bulk-result").waitFor();
  assert.match(
    (await page.getByTestId("bulk-result").textContent()) ?? "",
    /Disabled 21 keys of 24 keys selected; 3 keys already disabled/,
  );
  assert.equal(await page.getByTestId("bulk-still-refused").count(), 0);
  await page.getByRole("button", { name: "Done" }).click();

  await page.getByTestId("key-select-loaded").click();
  await page.getByRole("button", { name: "Enable…" }).click();
  const enable = page.getByRole("dialog", { name: "Enable 24 keys?" });
  await enable.waitFor();
  assert.equal(await enable.getByRole("textbox").count(), 0, "an enable is confirmed by a click");
  assert.equal(await enable.getByTestId("bulk-scope").textContent(), "Profile Local, account owner.");
  assert.equal(await enable.getByTestId("bulk-unchanged").count(), 0, "none is enabled already");
  await enable.getByRole("button", { name: "Enable 24 keys" }).click();
  const refused = page.getByTestId("bulk-still-refused");
  await refused.waitFor();
  assert.match(
    (await refused.textContent()) ?? "",
    /^Enabled, but still refused1 key of these is still refused: 1 expired\. /,
  );
  await page.screenshot({ path: join(RESULTS, "lifecycle-bulk-still-refused-1280x800.png") });
  await page.getByRole("button", { name: "Done" }).click();
  await page.getByRole("textbox", { name: "Search" }).fill("");
  await page.setViewportSize({ width: 1440, height: 900 });
  assert.deepEqual(pageProblems, []);
});
