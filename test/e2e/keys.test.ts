import assert from "node:assert/strict";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { formatApiDateTime } from "../../shared/datetime.ts";
import { seriousViolations } from "../harness/axe.ts";
import {
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  request,
  startServe,
} from "../harness/keyServiceProcess.ts";
import { cutInputText } from "../harness/layoutChecks.ts";
import { RESULTS } from "../harness/uiSession.ts";
import { type ListedKey, uiSuite } from "../harness/uiSuite.ts";
import { bridgeAnswer } from "../harness/webHostProcess.ts";

/**
 * The keys view end to end in Debian's Chromium through the browser host, with the real core and
 * embedded key service behind it: create (ALL, quick TFA), filter, look up, edit, disable/enable,
 * copy (read back from the browser's clipboard), field-level validation, accessibility. Run after
 * `npm run -s build` (npm test builds first).
 */

const {
  test,
  page,
  host,
  browser,
  bridge,
  rows,
  row,
  allKeys,
  problems: pageProblems,
} = uiSuite({
  name: "keys",
  context: { viewport: { width: 1400, height: 900 }, timezoneId: "Europe/Berlin" },
  // The page writes copied keys to the browser's clipboard; the test reads them back from there.
  clipboard: true,
});

interface Key {
  key: string;
  name: string;
  publicApiKey: string;
  permissions: string[];
  enabled: boolean;
  allowedIPs?: string[];
  validFrom?: string;
  validTo?: string;
}

/** A GET of the embedded service's HTTP API with the Local profile's credentials (owner). */
async function serviceGet<T>(path: string): Promise<T> {
  const local = await bridge<{ baseUrl: string; username: string; password: string }>(
    "profiles.revealLocalCredentials",
  );
  const answer = await request(local.baseUrl, { path, authorization: basic(local.username, local.password) });
  assert.equal(answer.status, 200, `GET ${path}: ${answer.text}`);
  return answer.json as T;
}

/** What the browser's clipboard holds now. */
function clipboardText(): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}

/**
 * The clipboard holds the publicApiKey of the key `keyId`: the service answers that very value
 * for the key, and looking the clipboard's text up in the service finds that key.
 */
async function assertClipboardHoldsKeyOf(keyId: string): Promise<void> {
  const onClipboard = await clipboardText();
  const stored = await serviceGet<Key>(`/settings/1/accounts/_/api-keys/${keyId}`);
  assert.equal(onClipboard, stored.publicApiKey, "the clipboard holds the key's publicApiKey");
  const found = await serviceGet<{ apiKeys: Key[] }>(
    `/settings/1/accounts/_/api-keys?publicApiKey=${encodeURIComponent(onClipboard)}`,
  );
  assert.deepEqual(
    found.apiKeys.map((key) => key.key),
    [keyId],
  );
}

async function keyNamed(name: string): Promise<ListedKey> {
  const keys = await allKeys();
  const found = keys.find((key) => key.name === name);
  assert.ok(found, `a key named ${name} exists`);
  return found;
}

async function axe(what: string, on: Page = page): Promise<void> {
  assert.deepEqual(
    await seriousViolations(on, "body"),
    [],
    `no serious or critical accessibility violation on ${what}`,
  );
}

/** Picks an option of the State filter. */
async function stateFilter(label: string): Promise<void> {
  await page.getByRole("combobox", { name: "State", exact: true }).selectOption({ label });
}

/** Clicks a Mantine switch's visible track, after checking it is the switch with that name. */
async function toggleSwitch(scope: Locator, name: string): Promise<void> {
  await scope.getByRole("switch", { name }).waitFor({ state: "attached" });
  await scope
    .locator(".mantine-Switch-root")
    .filter({ has: page.getByRole("switch", { name }) })
    .locator(".mantine-Switch-track")
    .click();
}

/** A screenshot under test-results/, once dialogs have finished fading in. */
async function shot(name: string): Promise<void> {
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(RESULTS, name) });
}

async function shownNames(): Promise<string[]> {
  return (await rows().locator("td:first-child").allTextContents()).sort();
}
async function waitForNames(expected: string[]): Promise<void> {
  const sorted = [...expected].sort();
  for (let i = 0; i < 50; i++) {
    if (JSON.stringify(await shownNames()) === JSON.stringify(sorted)) return;
    await page.waitForTimeout(100);
  }
  assert.deepEqual(await shownNames(), sorted);
}

test("an empty account shows the empty state, and the keys view passes axe", async () => {
  await page.goto(host.pageUrl);
  await page.getByTestId("key-list-empty").waitFor();
  assert.match(
    (await page.getByTestId("service-status").textContent()) ?? "",
    /running at http:\/\/127\.0\.0\.1/,
  );
  assert.ok(await page.getByRole("banner").isVisible(), "a header landmark");
  assert.ok(await page.getByRole("main").isVisible(), "a main landmark");
  assert.ok(await page.getByRole("navigation", { name: "Views" }).isVisible(), "a navigation landmark");
  await axe("the empty keys view");
});

test("`n` opens the create dialog, which passes axe; an ALL key is created and shown once in full", async () => {
  await page.locator("body").press("n");
  const dialog = page.getByRole("dialog", { name: "New API key" });
  await dialog.waitFor();
  await axe("the create dialog");
  await shot("keys-create-dialog.png");
  await dialog.getByLabel("Name").fill("Billing backend");
  await dialog.getByRole("button", { name: "Add IP" }).click();
  await dialog.getByLabel("Allowed IP 1", { exact: true }).fill("203.0.113.7/24");
  await dialog.getByRole("button", { name: "Add IP" }).click();
  await dialog.getByLabel("Allowed IP 2", { exact: true }).fill("2001:db8::1");
  // Valid to: the 15th of next month, 13:45:00 Berlin time, picked in the picker.
  assert.equal(await dialog.getByText("Local time (Europe/Berlin)").count(), 2, "the zone is shown");
  await dialog.getByRole("button", { name: "Valid to", exact: true }).click();
  const picker = page.locator("[data-dates-dropdown]");
  await picker.getByRole("button", { name: "Next month" }).click();
  await picker.locator('button[aria-label^="15 "]').click();
  await picker.getByRole("spinbutton", { name: "Hours" }).fill("13");
  await picker.getByRole("spinbutton", { name: "Minutes" }).fill("45");
  await picker.getByRole("spinbutton", { name: "Seconds" }).fill("00");
  await picker.getByRole("button", { name: "Apply Valid to" }).click();
  const pickedText =
    (await dialog.getByRole("button", { name: "Valid to", exact: true }).textContent()) ?? "";
  const picked = /^(\d{4})-(\d{2})-15 13:45:00$/.exec(pickedText.trim());
  assert.ok(picked, `the picker shows the local time picked: ${pickedText}`);
  const expectedValidTo = formatApiDateTime(
    await page.evaluate(({ y, m }) => new Date(y, m - 1, 15, 13, 45, 0).getTime(), {
      y: Number(picked[1]),
      m: Number(picked[2]),
    }),
  );
  // No permission is preselected: the form marks the missing choice and sends nothing.
  const all = dialog.getByRole("checkbox", { name: "ALL (every API)" });
  const tfa = dialog.getByRole("checkbox", { name: "TFA (2FA only)" });
  assert.deepEqual([await all.isChecked(), await tfa.isChecked()], [false, false]);
  const count = async () => (await bridge<{ count: number }>("keys.count", { accountKey: "_" })).count;
  const keysBefore = await count();
  await dialog.getByRole("button", { name: "Create key" }).click();
  await dialog.getByText("Choose at least one permission").waitFor();
  await shot("keys-create-no-permission.png");
  assert.equal(await dialog.isVisible(), true, "the dialog stays open");
  assert.equal(await count(), keysBefore, "nothing created");
  await all.check();
  assert.equal(await dialog.getByText("Choose at least one permission").count(), 0, "the choice clears it");
  await dialog.getByRole("button", { name: "Create key" }).click();

  const created = page.getByRole("dialog", { name: "Key created" });
  const shown = (await created.getByTestId("new-public-api-key").textContent()) ?? "";
  await page.waitForFunction(
    () => document.activeElement?.getAttribute("aria-label") === "Copy the publicApiKey of Billing backend",
    null,
    { timeout: 3000 },
  );
  const stored = await keyNamed("Billing backend");
  const revealed = await bridge<Key>("keys.revealPublicApiKey", { accountKey: "_", key: stored.key });
  assert.equal(shown, revealed.publicApiKey, "the dialog shows the key's full publicApiKey");
  assert.deepEqual(stored.permissions, ["ALL"]);
  assert.deepEqual(stored.allowedIPs, ["203.0.113.0/24", "2001:db8::1"]);
  assert.equal(stored.validTo, expectedValidTo, "sent as the API datetime of that local time");
  assert.match(stored.validTo ?? "", /T1[12]:45:00\.000\+0000$/, "13:45 in Berlin is 11:45 or 12:45 UTC");
  await shot("keys-created-dialog.png");

  await page.evaluate(() => navigator.clipboard.writeText("something else"));
  await created.getByRole("button", { name: "Copy the publicApiKey of Billing backend" }).click();
  await page
    .getByText(
      /The publicApiKey of “Billing backend” \(profile “Local”, account .+\) is on the clipboard \(cleared in 30 s\)/,
    )
    .waitFor();
  await assertClipboardHoldsKeyOf(stored.key);
  await created.getByRole("button", { name: "Done" }).click();
  await created.waitFor({ state: "hidden" });
  // Focus goes back to where keys are created, not to the page's start.
  await page.waitForFunction(() => document.activeElement?.textContent === "New key", null, {
    timeout: 3000,
  });

  await row("Billing backend").waitFor();
  assert.equal(
    await row("Billing backend").getAttribute("data-highlighted"),
    "true",
    "the new key is marked",
  );
  // The allowed IPs and the key id join the row where the name has had its share (1600 px).
  await page.setViewportSize({ width: 1700, height: 900 });
  await page.getByRole("columnheader", { name: "Key id" }).waitFor();
  const text = (await row("Billing backend").textContent()) ?? "";
  await page.setViewportSize({ width: 1400, height: 900 });
  assert.match(text, /ALL/);
  assert.match(text, /Enabled/);
  assert.match(text, /203\.0\.113\.0\/24 \+1 more/);
  assert.ok(text.includes(stored.key), "the key id is shown");
  assert.ok(!(await page.content()).includes(revealed.publicApiKey), "the table shows only the hint");
});

test("a page load asks the first view's data before it renders, each question once", async (t) => {
  const asked: string[] = [];
  const onRequest = (request: import("playwright-core").Request) => {
    const method = /^\/bridge\/([\w.]+)$/.exec(new URL(request.url()).pathname)?.[1];
    // The expiry notifications' own question (the keys expiring soon) is another one.
    const expiring = method === "keys.page" && (request.postData() ?? "").includes('"expiring-soon"');
    if (method && request.method() === "POST") asked.push(expiring ? "keys.page (expiring soon)" : method);
  };
  page.on("request", onRequest);
  t.after(() => page.off("request", onRequest));
  // What the page had drawn when it asked for its first keys.page.
  await page.addInitScript(() => {
    const pageFetch = window.fetch;
    const state = window as unknown as { __rootWhenKeysAsked?: number };
    window.fetch = (input, init) => {
      if (String(input).endsWith("/bridge/keys.page") && state.__rootWhenKeysAsked === undefined) {
        state.__rootWhenKeysAsked = document.getElementById("root")?.childElementCount ?? -1;
      }
      return pageFetch(input, init);
    };
  });
  await page.goto(host.pageUrl);
  await rows().first().waitFor();
  assert.equal(
    await page.evaluate(() => (window as unknown as { __rootWhenKeysAsked?: number }).__rootWhenKeysAsked),
    0,
    "the keys were asked for while the page was still empty",
  );
  // Past the answers' freshness window (1 s): a view asking again when it mounts would have by now.
  await page.waitForTimeout(1_500);
  for (const method of [
    "keys.page",
    "keys.page (expiring soon)",
    "accounts.list",
    "service.status",
    "profiles.checkActive",
    "profiles.list",
    "settings.get",
  ]) {
    assert.equal(asked.filter((name) => name === method).length, 1, `${method} once: ${asked.join(", ")}`);
  }
});

test("the quick TFA action asks a name (prefilled), creates a TFA key, shows its publicApiKey and copies it", async () => {
  await page.getByRole("button", { name: "New TFA key + copy" }).click();
  const ask = page.getByRole("dialog", { name: "New TFA key" });
  assert.match(await ask.getByLabel("Name").inputValue(), /^TFA key \d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
  await ask.getByRole("button", { name: "Create and copy" }).click();
  const created = page.getByRole("dialog", { name: "Key created" });
  const shown = (await created.getByTestId("new-public-api-key").textContent()) ?? "";
  const keys = await allKeys();
  const tfa = keys.find((key) => key.permissions.includes("TFA"));
  assert.ok(tfa, "a TFA key was created");
  await page
    .getByText(
      `The publicApiKey of “${tfa.name}” (profile “Local”, account owner (own account)) is on the clipboard (cleared in 30 s).`,
    )
    .waitFor();
  const revealed = await bridge<Key>("keys.revealPublicApiKey", { accountKey: "_", key: tfa.key });
  assert.equal(shown, revealed.publicApiKey);
  await assertClipboardHoldsKeyOf(tfa.key);
  await created.getByRole("button", { name: "Done" }).click();
  await row(tfa.name).waitFor();
  assert.match((await row(tfa.name).textContent()) ?? "", /TFA/);
});

test("a blank name and an invalid IP entry are refused at their fields", async () => {
  await page.getByRole("button", { name: "New key", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "New API key" });
  await dialog.getByRole("button", { name: "Add IP" }).click();
  await dialog.getByLabel("Allowed IP 1", { exact: true }).fill("10.0.0.300");
  await dialog.getByLabel("Name").fill("   ");
  await dialog.getByRole("button", { name: "Create key" }).click();
  assert.equal(await dialog.getByLabel("Allowed IP 1", { exact: true }).getAttribute("aria-invalid"), "true");
  assert.equal(await dialog.getByLabel("Name").getAttribute("aria-invalid"), "true");
  await dialog.getByText("Not an IPv4 or IPv6 address or CIDR range").waitFor();
  await dialog.getByText("Name must not be blank").waitFor();
  await axe("the create dialog showing field errors");
  await shot("keys-create-validation.png");
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "hidden" });
  assert.equal((await allKeys()).length, 2, "nothing was created");
});

test("filters by state, permission and name; `/` focuses the name search; states come from the window", async () => {
  const off = await bridge<Key>("keys.create", { accountKey: "_", request: { name: "Old partner" } });
  await bridge("keys.setEnabled", { accountKey: "_", key: off.key, enabled: false });
  await bridge("keys.create", {
    accountKey: "_",
    request: { name: "Future app", permissions: ["TFA"], validFrom: "2099-01-01T00:00:00.000+0000" },
  });
  await bridge("keys.create", {
    accountKey: "_",
    request: { name: "Past app", validTo: "2001-01-01T00:00:00.000+0000" },
  });
  const tfaName = (await allKeys()).find(
    (key) => key.permissions.includes("TFA") && key.name !== "Future app",
  )?.name as string;
  await page.reload();
  await waitForNames(["Billing backend", tfaName, "Old partner", "Future app", "Past app"]);
  assert.match((await row("Future app").getByTestId("key-state").textContent()) ?? "", /Not yet valid/);
  assert.match((await row("Past app").getByTestId("key-state").textContent()) ?? "", /Expired/);
  assert.match((await row("Old partner").getByTestId("key-state").textContent()) ?? "", /Disabled/);
  await shot("keys-view.png");

  await stateFilter("Disabled");
  await waitForNames(["Old partner"]);
  // An enabled key past its validTo or before its validFrom is refused by the service: not Enabled.
  await stateFilter("Enabled");
  await waitForNames(["Billing backend", tfaName]);
  await stateFilter("Expired");
  await waitForNames(["Past app"]);
  await stateFilter("Not yet valid");
  await waitForNames(["Future app"]);
  await stateFilter("All");

  await page.getByRole("combobox", { name: "Permission", exact: true }).selectOption({ label: "TFA" });
  await waitForNames([tfaName, "Future app"]);

  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur()); // out of the Select
  await page.keyboard.press("/");
  await page.waitForFunction(() => document.activeElement?.id === "key-name-search", null, { timeout: 2000 });
  await page.keyboard.type("FUTURE");
  await waitForNames(["Future app"]);
  await page.keyboard.press("n"); // typed into the field, not a shortcut
  assert.equal(await page.getByRole("dialog").count(), 0);
  await page.getByRole("textbox", { name: "Search", exact: true }).fill("");
  await page.getByRole("combobox", { name: "Permission", exact: true }).selectOption({ label: "Any" });
  await stateFilter("All");
  await waitForNames(["Billing backend", tfaName, "Old partner", "Future app", "Past app"]);
  await axe("the keys view with keys");
});

test("the one search box finds a key by its publicApiKey, its key id (any case) or its hint", async () => {
  const target = await keyNamed("Old partner");
  const { publicApiKey } = await bridge<Key>("keys.revealPublicApiKey", { accountKey: "_", key: target.key });
  const search = page.getByRole("textbox", { name: "Search", exact: true });
  const matches = page.getByTestId("search-matches");
  await search.fill(publicApiKey);
  await matches.getByText("Old partner").waitFor();
  assert.match((await matches.textContent()) ?? "", /Found by publicApiKey/);
  assert.match((await matches.textContent()) ?? "", new RegExp(target.key));
  assert.equal(await page.getByTestId("key-list-no-match").count(), 0, "no “No key matches”");
  // A value no key has is searched as a name too: no names match it either.
  await search.fill(`${publicApiKey.slice(0, -4)}0000`);
  await page.getByTestId("key-list-no-match").waitFor();
  assert.equal(await matches.count(), 0, "no “no key has that publicApiKey” above a name search");
  await search.fill(target.key.toLowerCase());
  await matches.getByText(/Found by key id: Old partner/).waitFor();
  const hint = `${publicApiKey.slice(0, 6)}...${publicApiKey.slice(-4)}`;
  await search.fill(hint);
  await matches.getByText(/Found by publicApiKey hint: Old partner/).waitFor();
  await matches.getByRole("button", { name: "Details of Old partner" }).click();
  await page.getByRole("dialog", { name: "Key “Old partner”" }).waitFor();
  await page.keyboard.press("Escape");
  await search.fill("");
  await matches.waitFor({ state: "detached" });
  assert.equal(await page.getByTestId("query-error-banner").count(), 0, "a search is no failed query");
});

test("a publicApiKey of a sub-account's key, searched in the own account, says which account has it", async () => {
  const sub = await bridge<{ accountKey: string; username: string }>("accounts.addSubAccount", {
    username: "search-elsewhere",
    password: "search-elsewhere-1",
  });
  const created = await bridge<Key>("keys.create", {
    accountKey: sub.accountKey,
    request: { name: "eu login-otp prod" },
  });
  const search = page.getByRole("textbox", { name: "Search", exact: true });
  await search.fill(created.publicApiKey);
  const elsewhere = page.getByTestId("search-found-elsewhere");
  await elsewhere.waitFor();
  assert.match(
    (await page.getByTestId("search-matches").textContent()) ?? "",
    /No key of this account has that publicApiKey: it is a key of the sub-account search-elsewhere;/,
  );
  await search.fill("");
  await page.getByTestId("search-matches").waitFor({ state: "detached" });
});

test("a piece of a publicApiKey or of a key id (as a log cuts it) finds its key, shown first in the table", async () => {
  const target = await keyNamed("Old partner");
  const { publicApiKey } = await bridge<Key>("keys.revealPublicApiKey", { accountKey: "_", key: target.key });
  const search = page.getByRole("textbox", { name: "Search", exact: true });
  const matches = page.getByTestId("search-matches");
  await search.fill(publicApiKey.slice(0, 16));
  await matches.getByText(/Found by part of its publicApiKey: Old partner/).waitFor();
  assert.equal(
    await page.getByTestId("key-row").first().getByTestId("key-name").textContent(),
    "Old partner",
  );
  await search.fill(target.key.slice(4, 14).toLowerCase());
  await matches.getByText(/Found by part of its key id: Old partner/).waitFor();
  assert.equal(
    await page.getByTestId("key-row").first().getByTestId("key-name").textContent(),
    "Old partner",
  );
  await page.screenshot({ path: join(RESULTS, "keys-search-piece-1280.png") });
  await search.fill("");
  await matches.waitFor({ state: "detached" });
});

test("a key's whole name, long and without spaces as a publicApiKey is, finds it by name", async () => {
  await bridge("keys.create", { request: { name: "data-export-prod-dave-019" } });
  await bridge("keys.create", { request: { name: "data-export-prod-dave-0190-copy" } });
  await page.getByRole("button", { name: "Refresh" }).click();
  const search = page.getByRole("textbox", { name: "Search", exact: true });
  await search.fill("data-export-prod-dave-019");
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll('[data-testid="key-row"]')].every((row) =>
        row.textContent?.includes("data-export-prod-dave-019"),
      ) && document.querySelectorAll('[data-testid="key-row"]').length === 2,
  );
  assert.equal(await page.getByTestId("search-matches").count(), 0);
  assert.equal(await page.getByTestId("key-list-no-match").count(), 0);
  await search.fill("");
});

test("a row reveals its publicApiKey on request, hides it again, and copies it to the clipboard", async () => {
  const target = await keyNamed("Old partner");
  const { publicApiKey } = await bridge<Key>("keys.revealPublicApiKey", { accountKey: "_", key: target.key });
  const shown = row("Old partner").getByTestId("public-api-key");
  // The hint's column joins from about 1500 px (keyColumns.ts).
  await page.setViewportSize({ width: 1600, height: 900 });
  assert.notEqual(await shown.textContent(), publicApiKey, "masked at first");
  await page.setViewportSize({ width: 1400, height: 900 });
  // The columns follow the table's measured width: the row is laid out for 1400 px once the hint is gone.
  await shown.waitFor({ state: "detached" });
  const edit = row("Old partner").getByRole("button", { name: "Edit Old partner" });
  const editAt = (await edit.boundingBox())?.x;
  await row("Old partner").getByRole("button", { name: "Reveal the publicApiKey of Old partner" }).click();
  // Reveal becomes Hide in the same room: the row's other actions stay where the pointer left them.
  await row("Old partner").getByRole("button", { name: "Hide the publicApiKey of Old partner" }).waitFor();
  assert.equal((await edit.boundingBox())?.x, editAt);
  // Whole, in a popover of its own (not drawn over the neighbouring rows), with Copy beside it.
  const popover = page.getByRole("dialog", { name: "publicApiKey of Old partner" });
  const full = popover.getByTestId("revealed-public-api-key");
  assert.equal(await full.textContent(), publicApiKey);
  const [keyBox, popoverBox] = [await full.boundingBox(), await popover.boundingBox()];
  assert.ok(
    keyBox && popoverBox && keyBox.y + keyBox.height <= popoverBox.y + popoverBox.height,
    "not cut off",
  );
  assert.equal(await full.evaluate((e) => getComputedStyle(e).userSelect), "all", "selectable as a whole");
  assert.equal(
    await popover.getByRole("button", { name: "Copy the publicApiKey of Old partner" }).count(),
    1,
  );
  await shot("keys-reveal-popover.png");
  await row("Old partner").getByRole("button", { name: "Hide the publicApiKey of Old partner" }).click();
  await popover.waitFor({ state: "detached" });
  assert.equal(await page.getByText(publicApiKey).count(), 0);
  await row("Old partner").getByRole("button", { name: "Copy the publicApiKey of Old partner" }).click();
  await page
    .getByText(/The publicApiKey of “Old partner” \(profile “Local”, account .+\) is on the clipboard/)
    .waitFor();
  await assertClipboardHoldsKeyOf(target.key);
  assert.equal(await row("Old partner").getByText(publicApiKey).count(), 0, "copying does not reveal");
});

test("a copied publicApiKey is cleared after the delay, unless the clipboard holds something else by then", async (t) => {
  await bridge("settings.update", { clipboardClearSeconds: 5 });
  t.after(() => bridge("settings.update", { clipboardClearSeconds: 30 }));
  const first = await keyNamed("Future app");
  const second = await keyNamed("Past app");
  // Neither was copied before: no earlier copy's clear is pending for them.
  await row("Future app").getByRole("button", { name: "Copy the publicApiKey of Future app" }).click();
  await page
    .getByText(
      /The publicApiKey of “Future app” \(profile “Local”, account .+\) is on the clipboard \(cleared in 5 s\)/,
    )
    .waitFor();
  const firstCopiedAt = Date.now();
  await assertClipboardHoldsKeyOf(first.key);
  await page.waitForTimeout(1500);
  await row("Past app").getByRole("button", { name: "Copy the publicApiKey of Past app" }).click();
  await page
    .getByText(
      /The publicApiKey of “Past app” \(profile “Local”, account .+\) is on the clipboard \(cleared in 5 s\)/,
    )
    .waitFor();
  await assertClipboardHoldsKeyOf(second.key);

  // The first copy's delay ends while the clipboard holds the second key: that stays.
  await page.waitForTimeout(Math.max(0, firstCopiedAt + 5600 - Date.now()));
  await assertClipboardHoldsKeyOf(second.key);
  // The second copy's delay ends with its key still there: cleared.
  for (let i = 0; i < 30 && (await clipboardText()) !== ""; i++) await page.waitForTimeout(100);
  assert.equal(await clipboardText(), "");
  assert.ok(Date.now() - firstCopiedAt >= 6400, "not before the second copy's delay was over");
});

test("the edit dialog changes name, permissions, IPs and the validity window", async () => {
  await row("Future app").getByRole("button", { name: "Edit Future app" }).click();
  const dialog = page.getByRole("dialog", { name: "Edit “Future app”" });
  await dialog.waitFor();
  await shot("keys-edit-dialog.png");
  await dialog.getByLabel("Name").fill("Present app");
  await dialog.getByRole("checkbox", { name: "ALL (every API)" }).check();
  await dialog.getByRole("checkbox", { name: "TFA (2FA only)" }).uncheck();
  await dialog.getByRole("button", { name: "Add IP" }).click();
  await dialog.getByLabel("Allowed IP 1", { exact: true }).fill("::ffff:192.0.2.1");
  await dialog.getByRole("button", { name: "Clear Valid from" }).click();
  await dialog.getByRole("button", { name: "Save changes" }).click();
  await dialog.waitFor({ state: "hidden" });
  const saved = await keyNamed("Present app");
  assert.deepEqual(saved.permissions, ["ALL"]);
  assert.deepEqual(saved.allowedIPs, ["192.0.2.1"]);
  assert.equal(saved.validFrom, undefined);
  assert.equal(saved.enabled, true);
  await row("Present app").waitFor();
  assert.match((await row("Present app").getByTestId("key-state").textContent()) ?? "", /Enabled/);
});

test("an ALL+TFA key opens with both permissions ticked, and a rename keeps both (only the name is sent)", async () => {
  const both = await bridge<Key>("keys.create", {
    request: { name: "both permissions", permissions: ["ALL", "TFA"] },
  });
  await page.getByRole("button", { name: "Refresh" }).click();
  await row("both permissions").getByRole("button", { name: "Edit both permissions" }).click();
  const dialog = page.getByRole("dialog", { name: "Edit “both permissions”" });
  assert.equal(await dialog.getByRole("checkbox", { name: "ALL (every API)" }).isChecked(), true);
  assert.equal(await dialog.getByRole("checkbox", { name: "TFA (2FA only)" }).isChecked(), true);
  await dialog.getByLabel("Name").fill("both permissions, renamed");
  await dialog.getByRole("button", { name: "Save changes" }).click();
  await dialog.waitFor({ state: "hidden" });
  const saved = await keyNamed("both permissions, renamed");
  assert.equal(saved.key, both.key);
  assert.deepEqual(saved.permissions, ["ALL", "TFA"]);
  // Neither ticked: the form says so and sends nothing.
  await row("both permissions, renamed")
    .getByRole("button", { name: "Edit both permissions, renamed" })
    .click();
  const again = page.getByRole("dialog", { name: "Edit “both permissions, renamed”" });
  await again.getByRole("checkbox", { name: "ALL (every API)" }).uncheck();
  await again.getByRole("checkbox", { name: "TFA (2FA only)" }).uncheck();
  await again.getByRole("button", { name: "Save changes" }).click();
  await again.getByText("Choose at least one permission").waitFor();
  await again.getByRole("button", { name: "Cancel" }).click();
  assert.deepEqual((await keyNamed("both permissions, renamed")).permissions, ["ALL", "TFA"]);
});

test("disabling asks first and says what stops working; enabling is one click", async () => {
  const billing = await keyNamed("Billing backend");
  await toggleSwitch(row("Billing backend"), "Billing backend enabled");
  const confirm = page.getByRole("dialog", { name: "Disable “Billing backend”?" });
  await confirm.getByText(/Every application that uses this key is refused/).waitFor();
  // What the service really answers (electron/service/domain/keyAuthorization.ts).
  await confirm
    .getByText(/403 FORBIDDEN, “the API key … is disabled; an admin can enable it again”/)
    .waitFor();
  await shot("keys-disable-confirm.png");
  assert.equal((await keyNamed("Billing backend")).enabled, true, "nothing changes before confirming");
  await confirm.getByRole("button", { name: "Disable key" }).click();
  await row("Billing backend").getByTestId("key-state").getByText("Disabled").waitFor();
  for (let i = 0; i < 50 && (await keyNamed("Billing backend")).enabled; i++) await page.waitForTimeout(100);
  assert.equal((await bridge<Key>("keys.get", { accountKey: "_", key: billing.key })).enabled, false);

  await toggleSwitch(row("Billing backend"), "Billing backend enabled");
  assert.equal(await page.getByRole("dialog").count(), 0, "no confirmation to enable");
  await row("Billing backend").getByTestId("key-state").getByText("Enabled").waitFor();
  for (let i = 0; i < 50 && !(await keyNamed("Billing backend")).enabled; i++) await page.waitForTimeout(100);
  assert.equal((await bridge<Key>("keys.get", { accountKey: "_", key: billing.key })).enabled, true);
});

test("a validity window ending before its start is refused at Valid to, in the form (nothing is sent)", async () => {
  await row("Past app").getByRole("button", { name: "Edit Past app" }).click();
  const dialog = page.getByRole("dialog", { name: "Edit “Past app”" });
  await dialog.getByRole("button", { name: "Valid from", exact: true }).click();
  const picker = page.locator("[data-dates-dropdown]");
  await picker.getByRole("button", { name: "Next month" }).click();
  await picker.locator('button[aria-label^="15 "]').click();
  await picker.getByRole("button", { name: "Apply Valid from" }).click();
  await dialog.getByRole("button", { name: "Save changes" }).click();
  await dialog.getByText("Must be after Valid from", { exact: true }).waitFor();
  assert.match(
    (await dialog.getByRole("button", { name: "Valid to", exact: true }).getAttribute("aria-invalid")) ?? "",
    /true/,
  );
  await shot("keys-edit-window-refused.png");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await dialog.waitFor({ state: "hidden" });
  assert.equal((await keyNamed("Past app")).validFrom, undefined, "nothing was saved");
});

test("the edit dialog's Enabled switch disables after confirmation", async () => {
  await row("Past app").getByRole("button", { name: "Edit Past app" }).click();
  const dialog = page.getByRole("dialog", { name: "Edit “Past app”" });
  await toggleSwitch(dialog, "Enabled");
  await dialog.getByRole("button", { name: "Save changes" }).click();
  await page
    .getByRole("dialog", { name: "Disable “Past app”?" })
    .getByRole("button", { name: "Disable key" })
    .click();
  await row("Past app").getByTestId("key-state").getByText("Disabled").waitFor();
  assert.equal((await keyNamed("Past app")).enabled, false);
  assert.deepEqual(pageProblems, [], "no console errors (CSP included)");
});

/** Picks day `day` of next month at hh:mm:ss in the open date-time picker; answers the year and month. */
async function pickNextMonth(
  on: Page,
  field: string,
  day: number,
  time: [string, string, string],
): Promise<{ year: number; month: number }> {
  const dialog = on.getByRole("dialog");
  await dialog.getByRole("button", { name: field, exact: true }).click();
  const picker = on.locator("[data-dates-dropdown]");
  await picker.getByRole("button", { name: "Next month" }).click();
  await picker.locator(`button[aria-label^="${day} "]`).click();
  await picker.getByRole("spinbutton", { name: "Hours" }).fill(time[0]);
  await picker.getByRole("spinbutton", { name: "Minutes" }).fill(time[1]);
  await picker.getByRole("spinbutton", { name: "Seconds" }).fill(time[2]);
  await picker.getByRole("button", { name: `Apply ${field}` }).click();
  await picker.waitFor({ state: "hidden" });
  const shown = (await dialog.getByRole("button", { name: field, exact: true }).textContent()) ?? "";
  const match = new RegExp(`^(\\d{4})-(\\d{2})-${String(day).padStart(2, "0")} ${time.join(":")}$`).exec(
    shown.trim(),
  );
  assert.ok(match, `${field} shows the local time picked: "${shown}"`);
  return { year: Number(match[1]), month: Number(match[2]) };
}

test("every field of the edit dialog is saved, dates entered in Kolkata time stored as their UTC instant", async (t) => {
  const original = await bridge<Key>("keys.create", {
    accountKey: "_",
    request: { name: "Kolkata partner", permissions: ["TFA"], allowedIPs: ["198.51.100.4", "10.1.0.0/16"] },
  });
  // A browser in India (UTC+05:30 all year, no daylight saving): local times are not UTC times.
  const kolkata = await browser.newContext({
    viewport: { width: 1400, height: 900 },
    timezoneId: "Asia/Kolkata",
  });
  t.after(() => kolkata.close());
  const local = await kolkata.newPage();
  local.setDefaultTimeout(10_000);
  const problems: string[] = [];
  local.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  await local.goto(host.pageUrl);
  const keyRow = local.getByTestId("key-row").filter({ hasText: "Kolkata partner" });
  await keyRow.getByRole("button", { name: "Edit Kolkata partner" }).click();
  const dialog = local.getByRole("dialog", { name: "Edit “Kolkata partner”" });
  await dialog.waitFor();
  // Chromium's ICU names the zone by its canonical id, Asia/Calcutta.
  assert.equal(
    await dialog.getByText(/^Local time \(Asia\/(Kolkata|Calcutta)\)$/).count(),
    2,
    "the zone is shown",
  );

  await dialog.getByLabel("Name").fill("Kolkata partner (renewed)");
  await dialog.getByRole("checkbox", { name: "ALL (every API)" }).check();
  await dialog.getByRole("checkbox", { name: "TFA (2FA only)" }).uncheck();
  await dialog.getByLabel("Allowed IP 1", { exact: true }).fill("198.51.100.0/24");
  await dialog.getByRole("button", { name: "Remove allowed IP 2" }).click();
  await dialog.getByRole("button", { name: "Add IP" }).click();
  await dialog.getByLabel("Allowed IP 2", { exact: true }).fill("2001:db8:abcd::/48");
  const from = await pickNextMonth(local, "Valid from", 15, ["09", "05", "30"]);
  const to = await pickNextMonth(local, "Valid to", 20, ["02", "15", "00"]);
  await dialog
    .locator(".mantine-Switch-root")
    .filter({ has: local.getByRole("switch", { name: "Enabled" }) })
    .locator(".mantine-Switch-track")
    .click();
  await axe("the edit dialog with every field changed", local);
  await local.screenshot({ path: join(RESULTS, "keys-edit-every-field.png") });
  await dialog.getByRole("button", { name: "Save changes" }).click();
  await local
    .getByRole("dialog", { name: "Disable “Kolkata partner”?" })
    .getByRole("button", { name: "Disable key" })
    .click();
  // The edit dialog is hidden already while the confirmation shows: the save is done once it says so.
  await local.getByText("Saved “Kolkata partner (renewed)”.").waitFor();
  await dialog.waitFor({ state: "hidden" });

  // What the service stored, asked over its HTTP API with the Local profile's credentials.
  const stored = await serviceGet<Key>(`/settings/1/accounts/_/api-keys/${original.key}`);
  const month = (m: number) => String(m).padStart(2, "0");
  assert.equal(stored.name, "Kolkata partner (renewed)");
  assert.deepEqual(stored.permissions, ["ALL"]);
  assert.deepEqual(stored.allowedIPs, ["198.51.100.0/24", "2001:db8:abcd::/48"]);
  assert.equal(stored.enabled, false);
  // 09:05:30 on the 15th in Kolkata is 03:35:30 UTC; 02:15 on the 20th is 20:45 UTC on the 19th.
  assert.equal(stored.validFrom, `${from.year}-${month(from.month)}-15T03:35:30.000+0000`);
  assert.equal(stored.validTo, `${to.year}-${month(to.month)}-19T20:45:00.000+0000`);
  assert.equal(stored.publicApiKey, original.publicApiKey, "the publicApiKey did not change");

  // Opened again, the dialog shows the stored values in local time.
  const renamed = local.getByTestId("key-row").filter({ hasText: "Kolkata partner (renewed)" });
  await renamed.getByTestId("key-state").getByText("Disabled").waitFor();
  await renamed.getByRole("button", { name: "Edit Kolkata partner (renewed)" }).click();
  const again = local.getByRole("dialog", { name: "Edit “Kolkata partner (renewed)”" });
  await again.waitFor();
  assert.equal(
    (await again.getByRole("button", { name: "Valid from", exact: true }).textContent())?.trim(),
    `${from.year}-${month(from.month)}-15 09:05:30`,
  );
  assert.equal(
    (await again.getByRole("button", { name: "Valid to", exact: true }).textContent())?.trim(),
    `${to.year}-${month(to.month)}-20 02:15:00`,
  );
  assert.equal(await again.getByLabel("Allowed IP 2", { exact: true }).inputValue(), "2001:db8:abcd::/48");
  assert.equal(await again.getByRole("checkbox", { name: "ALL (every API)" }).isChecked(), true);
  assert.equal(await again.getByRole("checkbox", { name: "TFA (2FA only)" }).isChecked(), false);
  assert.equal(await again.getByRole("switch", { name: "Enabled" }).isChecked(), false);
  await again.getByRole("button", { name: "Cancel" }).click();
  assert.deepEqual(problems, []);
});

test("when the service cannot be reached: a banner with Retry, and nothing of the profile before is left on screen", async (t) => {
  await row("Present app").getByTestId("key-state").getByText("Enabled").waitFor();
  // A remote profile on a port nobody listens on yet: activating it makes every call fail.
  const port = await freePort();
  const remote = await bridge<{ id: string }>("profiles.add", {
    name: "Remote",
    baseUrl: `http://127.0.0.1:${port}`,
    username: "remote-admin",
    password: "remote-password-123",
  });
  const local = (await bridge<{ id: string; kind: string }[]>("profiles.list")).find(
    (p) => p.kind === "local",
  );
  assert.ok(local);
  const present = await keyNamed("Present app");
  // Activated elsewhere (another window): the page follows, and Local's rows go with Local.
  await bridge("profiles.activate", { id: remote.id });
  const banner = page.getByTestId("query-error-banner");
  await banner.waitFor();
  assert.equal(await page.getByRole("combobox", { name: "Active profile" }).inputValue(), "Remote (remote)");
  assert.equal(await row("Present app").count(), 0, "no row of Local's is left to act on");
  await shot("keys-error-banner.png");
  // An action named for Local, made by a page that has not followed yet, reaches nothing.
  const refused = await bridgeAnswer(host, "keys.setEnabled", {
    profile: local.id,
    accountKey: "_",
    key: present.key,
    enabled: false,
  });
  assert.ok(!refused.ok && refused.error.messageId === "PROFILE_CHANGED");

  // The remote service comes up: Retry loads its (empty) key list, and the banner goes.
  const remoteDir = await makeTempDir("keydesk-e2e-remote-");
  t.after(() => removeDir(remoteDir));
  await addAccount(remoteDir, "remote-admin", "remote-password-123");
  const service = await startServe({ dataDir: remoteDir, args: ["--port", String(port)] });
  t.after(() => service.stop());
  // Retry, or the header's next check that reaches it, asks again.
  await banner
    .getByRole("button", { name: "Retry" })
    .click({ timeout: 2_000 })
    .catch(() => {});
  await banner.waitFor({ state: "hidden" });
  await page.getByTestId("key-list-empty").waitFor();

  await bridge("profiles.activate", { id: local.id });
  await row("Present app").waitFor();
  assert.equal((await keyNamed("Present app")).enabled, true, "the refused disable changed nothing");
});

/** A loopback port that is free right now. */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolvePort(port));
    });
  });
}

test("with the OS in dark mode the keys view turns dark and still passes axe", async () => {
  // Toasts close themselves after 4 s; the check is about the view.
  await page.waitForFunction(() => !document.querySelector(".mantine-Notification-root"), null, {
    timeout: 8000,
  });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.waitForFunction(() => document.documentElement.dataset.mantineColorScheme === "dark");
  await axe("the keys view in dark mode");
  await shot("keys-view-dark.png");
  await page.emulateMedia({ colorScheme: "light" });
});

const BIG_ACCOUNT_KEYS = 1_500;
const bigKeyName = (index: number) =>
  `bulk key ${String(index).padStart(4, "0")}${index === 1234 ? " needle" : ""}`;

/** Scrolls the keys table to its end until `name`'s row is in the DOM (each scroll may load a page). */
async function scrollUntilRow(name: string): Promise<number> {
  for (let scrolls = 1; scrolls <= 60; scrolls++) {
    // The page scrolls the table (one scroll container).
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.waitForTimeout(150);
    if ((await row(name).count()) > 0) return scrolls;
  }
  assert.fail(`scrolling to the end never showed ${name}`);
}

test("an account of 1,500 keys: first rows from one page, scrolling loads the rest, filter and toggle beyond page 1", async (t) => {
  await bridge("accounts.addSubAccount", { username: "bulk-owner", password: "bulk-password-123" });
  const bulk = (await bridge<{ accountKey: string; username: string }[]>("accounts.list")).find(
    (account) => account.username === "bulk-owner",
  );
  assert.ok(bulk);
  // Straight to the embedded service's API (as the Local owner), many at a time.
  const seedStarted = Date.now();
  const local = await bridge<{ baseUrl: string; username: string; password: string }>(
    "profiles.revealLocalCredentials",
  );
  for (let from = 0; from < BIG_ACCOUNT_KEYS; from += 100) {
    await Promise.all(
      Array.from({ length: 100 }, async (_, offset) => {
        const answer = await fetch(`${local.baseUrl}/settings/1/accounts/${bulk.accountKey}/api-keys`, {
          method: "POST",
          headers: {
            authorization: basic(local.username, local.password),
            "content-type": "application/json",
          },
          body: JSON.stringify({ name: bigKeyName(from + offset) }),
        });
        assert.equal(answer.status, 200, await answer.text());
      }),
    );
  }
  t.diagnostic(`seeded in ${Date.now() - seedStarted} ms`);
  const created = (await allKeys(bulk.accountKey)).map((key) => key.name);
  assert.equal(created.length, BIG_ACCOUNT_KEYS);
  const [firstName, lastName, onPage2] = [created[0], created[BIG_ACCOUNT_KEYS - 1], created[300]] as [
    string,
    string,
    string,
  ];
  // What the page receives: every keys.page answer, never more than a page of rows.
  const answered: number[] = [];
  const onResponse = async (response: import("playwright-core").Response) => {
    if (!response.url().endsWith("/bridge/keys.page")) return;
    const result = (await response.json().catch(() => null)) as {
      ok: boolean;
      value?: { keys: Key[] };
    } | null;
    if (result?.ok && result.value) answered.push(result.value.keys.length);
  };
  page.on("response", onResponse);
  t.after(() => page.off("response", onResponse));

  await page.goto(host.pageUrl);
  await page.getByRole("combobox", { name: "Account", exact: true }).click();
  await page.getByRole("option", { name: "bulk-owner (sub-account)", exact: true }).click();
  await row(firstName).waitFor();
  await page.getByTestId("key-count").getByText("1,500 keys", { exact: true }).waitFor();
  assert.ok(answered.length > 0, "the rows came through keys.page");
  assert.ok(
    answered.every((rows) => rows <= 200),
    `no answer holds more than a page: ${answered.join(", ")}`,
  );
  assert.equal(await row(lastName).count(), 0, "not all at once");
  assert.ok((await rows().count()) < 100, "only the rows in view are rendered");
  for (const [width, height] of [
    [800, 500],
    [1024, 768],
    [1280, 800],
  ] as const) {
    await page.setViewportSize({ width, height });
    // A long account name wraps the title's buttons: the filters below must still read whole.
    assert.equal(
      await page
        .getByRole("combobox", { name: "Account", exact: true })
        .evaluate((input: HTMLInputElement) => input.scrollWidth > input.clientWidth),
      false,
      `${width}×${height}: the header's account field shows "bulk-owner (sub-account)" whole`,
    );
    assert.deepEqual(
      await cutInputText(page),
      [],
      `${width}×${height}: every placeholder and chosen option reads whole`,
    );
    await shot(`keys-big-account-${width}x${height}.png`);
  }
  await page.setViewportSize({ width: 1400, height: 900 });

  // Scrolling to the bottom loads page after page until the last key shows.
  await scrollUntilRow(lastName);
  assert.ok(answered.length >= BIG_ACCOUNT_KEYS / 200, `pages loaded: ${answered.length}`);
  assert.ok(
    answered.every((rows) => rows <= 200),
    `no answer holds more than a page: ${answered.join(", ")}`,
  );
  assert.equal(await page.getByTestId("key-rows-loading").count(), 0, "nothing more to load at the end");
  await shot("keys-big-account-end.png");

  // The name filter asks the service: a key far beyond the first page is found.
  const search = page.getByRole("textbox", { name: "Search", exact: true });
  await search.fill("needle");
  await waitForNames([bigKeyName(1234)]);
  await page.getByTestId("key-count").getByText("1 of 1,500 keys", { exact: true }).waitFor();
  await shot("keys-big-account-filtered.png");
  await search.fill("");

  // A key of the second page is disabled from its row.
  const target = onPage2;
  await page.getByTestId("key-count").getByText("1,500 keys", { exact: true }).waitFor();
  // Row 300 (page 2) scrolled into view: the rows above it are loaded already.
  await page.evaluate(() => {
    const rows = document.querySelector(".kd-keys-tbody")?.getBoundingClientRect().top ?? 0;
    window.scrollTo(0, rows + window.scrollY + 300 * 48 - 200);
  });
  await row(target).waitFor();
  await toggleSwitch(row(target), `${target} enabled`);
  await page
    .getByRole("dialog", { name: `Disable “${target}”?` })
    .getByRole("button", { name: "Disable key" })
    .click();
  await row(target).getByTestId("key-state").getByText("Disabled").waitFor();
  const stored = (await allKeys(bulk.accountKey)).find((key) => key.name === target);
  assert.equal(stored?.enabled, false, "the service has the key disabled");
  await stateFilter("Disabled");
  await waitForNames([target]);
  await page.getByTestId("key-count").getByText("1 of 1,500 keys", { exact: true }).waitFor();
  await stateFilter("All");
  assert.deepEqual(pageProblems, []);
});
