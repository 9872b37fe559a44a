import assert from "node:assert/strict";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import type { Locator } from "playwright-core";
import { formatApiDateTime } from "../../shared/datetime.ts";
import { seriousViolations } from "../harness/axe.ts";
import { RESULTS } from "../harness/uiSession.ts";
import { uiSuite } from "../harness/uiSuite.ts";

/**
 * The keys view as an admin's console (issue 13) in Chromium through the browser host: the
 * details panel, validity at a glance, keys made elsewhere showing up, a new key scrolled to, the
 * quick TFA key in a sub-account, the heading naming the account, Esc in a changed Edit dialog,
 * and an unreachable remote called unreachable.
 */

const DAY = 24 * 3600_000;

interface Key {
  key: string;
  name: string;
  permissions: string[];
  enabled: boolean;
  publicApiKeyHint: string;
}

const {
  test,
  page,
  host,
  bridge,
  allKeys,
  rows,
  row,
  problems: pageProblems,
  before,
} = uiSuite({
  name: "keys-console",
  context: { viewport: { width: 1280, height: 800 }, timezoneId: "Europe/Berlin" },
  clipboard: true,
});

before(async () => {
  const now = Date.now();
  for (let i = 0; i < 60; i++) {
    await bridge("keys.create", {
      accountKey: "_",
      request: { name: `filler ${String(i).padStart(2, "0")}` },
    });
  }
  await bridge("keys.create", {
    accountKey: "_",
    request: { name: "Soon gone", validTo: formatApiDateTime(now + 2 * DAY + 3600_000) },
  });
  await bridge("keys.create", {
    accountKey: "_",
    request: { name: "Long gone", validTo: formatApiDateTime(now - 3 * DAY) },
  });
});

test("the heading names the account; Valid to says when in words and warns of keys expiring within 7 days", async () => {
  await page.goto(host.pageUrl);
  await page.getByTestId("keys-heading").getByText("API keys of owner").waitFor();
  await page.getByRole("combobox", { name: "State", exact: true }).selectOption({ label: "Expiring soon" });
  await row("Soon gone").waitFor();
  assert.equal(await rows().count(), 1, "only the key expiring within 7 days");
  const validTo = row("Soon gone").getByTestId("key-valid-to");
  assert.match((await validTo.textContent()) ?? "", /expires in 2 days/);
  assert.equal(await validTo.getAttribute("data-expiring-soon"), "true");
  await page.getByRole("combobox", { name: "State", exact: true }).selectOption({ label: "Expired" });
  await row("Long gone").waitFor();
  assert.match(
    (await row("Long gone").getByTestId("key-valid-to").textContent()) ?? "",
    /expired 3 days ago/,
  );
  await page.getByRole("combobox", { name: "State", exact: true }).selectOption({ label: "All" });
  await page.getByTestId("key-count").getByText("62 keys", { exact: true }).waitFor();
});

test("a click on a header sorts by that column in the service, ascending then descending", async () => {
  const names = async () => rows().getByTestId("key-name").allTextContents();
  const nameHeader = page.getByRole("columnheader", { name: /^Name/ });
  await nameHeader.getByRole("button").click();
  await page.waitForFunction(
    () => document.querySelector("[data-testid=key-name]")?.textContent === "filler 00",
  );
  assert.equal(await nameHeader.getAttribute("aria-sort"), "ascending");
  const ascending = await names();
  assert.deepEqual(
    ascending,
    [...ascending].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())),
  );
  await nameHeader.getByRole("button").click();
  await page.waitForFunction(
    () => document.querySelector("[data-testid=key-name]")?.textContent === "Soon gone",
  );
  assert.equal(await nameHeader.getAttribute("aria-sort"), "descending");
  // Valid to: the key that expired first, then the one expiring soonest; keys without an end last.
  await page
    .getByRole("columnheader", { name: /^Valid to/ })
    .getByRole("button")
    .click();
  await page.waitForFunction(
    () => document.querySelector("[data-testid=key-name]")?.textContent === "Long gone",
  );
  assert.deepEqual((await names()).slice(0, 2), ["Long gone", "Soon gone"]);
  // Back to creation order from the Sort select.
  await page.getByRole("combobox", { name: "Sort", exact: true }).selectOption({ label: "Oldest first" });
  await page.waitForFunction(
    () => document.querySelector("[data-testid=key-name]")?.textContent === "filler 00",
  );
});

test("each Sort choice's label says which keys come first", async () => {
  const disabled = (await allKeys()).find((key) => key.name === "filler 59");
  assert.ok(disabled);
  await bridge("keys.setEnabled", { accountKey: "_", key: disabled.key, enabled: false });
  await page.getByRole("button", { name: "Refresh" }).click();
  const sort = page.getByRole("combobox", { name: "Sort", exact: true });
  const firstNames = async (label: string, first: string) => {
    await sort.selectOption({ label });
    await page.waitForFunction(
      (name) => document.querySelector("[data-testid=key-name]")?.textContent === name,
      first,
    );
    return rows().getByTestId("key-name").allTextContents();
  };
  assert.deepEqual((await firstNames("Valid to: ended first", "Long gone")).slice(0, 2), [
    "Long gone",
    "Soon gone",
  ]);
  const noEndFirst = await firstNames("Valid to: no end first", "filler 59");
  assert.ok(!noEndFirst.slice(0, 5).includes("Long gone"), "keys without an end first");
  // Working keys lead (the soonest ending first), not the expired one whose switch is on.
  const workingFirst = await firstNames("State: working first", "Soon gone");
  assert.equal(workingFirst.includes("Long gone"), false, "the expired key is not among the first rows");
  assert.equal(workingFirst.includes("filler 59"), false, "nor the disabled one");
  assert.deepEqual((await firstNames("State: disabled first", "filler 59")).slice(0, 2), [
    "filler 59",
    "Long gone",
  ]);
  await bridge("keys.setEnabled", { accountKey: "_", key: disabled.key, enabled: true });
  await sort.selectOption({ label: "Oldest first" });
});

test("a filter or sort change shows the list from its top; the filters, search and sort are as left after a visit to another tab", async () => {
  // The page scrolls the table (one scroll container): to its end, then a change shows the first row.
  const toEnd = () => page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await toEnd();
  await page.waitForFunction(() => window.scrollY > 200);
  await page.getByRole("combobox", { name: "Permission", exact: true }).selectOption({ label: "ALL" });
  await page.waitForFunction(firstRowInSight);
  await toEnd();
  await page.getByRole("combobox", { name: "Sort", exact: true }).selectOption({ label: "Name Z–A" });
  await page.waitForFunction(
    () => document.querySelector("[data-testid=key-name]")?.textContent === "Soon gone",
  );
  assert.equal(await page.evaluate(firstRowInSight), true);

  await page.getByRole("textbox", { name: "Search", exact: true }).fill("filler 1");
  await page.getByRole("navigation", { name: "Views" }).getByRole("tab", { name: "Profiles" }).click();
  await page.getByRole("navigation", { name: "Views" }).getByRole("tab", { name: "Keys" }).click();
  assert.equal(await page.getByRole("textbox", { name: "Search", exact: true }).inputValue(), "filler 1");
  assert.equal(await page.getByRole("combobox", { name: "Permission", exact: true }).inputValue(), "ALL");
  assert.equal(await page.getByRole("combobox", { name: "Sort", exact: true }).inputValue(), "-name");
  await page.waitForFunction(
    () => document.querySelector("[data-testid=key-name]")?.textContent === "filler 19",
  );
  await page.getByRole("textbox", { name: "Search", exact: true }).fill("");
  await page.getByRole("combobox", { name: "Permission", exact: true }).selectOption({ label: "Any" });
  await page.getByRole("combobox", { name: "Sort", exact: true }).selectOption({ label: "Oldest first" });
});

test("a key's details panel: every field, its state in words with the rule, Copy of the key id, the whole publicApiKey", async () => {
  const target = (await allKeys()).find((key) => key.name === "Long gone") as Key;
  await page.getByRole("textbox", { name: "Search", exact: true }).fill("long gone");
  await row("Long gone").getByRole("button", { name: "Details of Long gone" }).click();
  const panel = page.getByRole("dialog", { name: "Key “Long gone”" });
  await panel.waitFor();
  assert.match(
    (await panel.getByTestId("key-state-explanation").textContent()) ?? "",
    /^Expired .*3 days ago.*403 FORBIDDEN/,
  );
  await panel.getByText(target.key).waitFor();
  await panel.getByRole("button", { name: "Copy the key id of Long gone" }).click();
  await page.waitForFunction(async (id) => (await navigator.clipboard.readText()) === id, target.key, {
    timeout: 3000,
  });
  await panel.getByRole("button", { name: "Reveal the publicApiKey of Long gone" }).click();
  const full = await bridge<{ publicApiKey: string }>("keys.revealPublicApiKey", {
    accountKey: "_",
    key: target.key,
  });
  assert.equal(await panel.getByTestId("revealed-public-api-key").textContent(), full.publicApiKey);
  assert.deepEqual(await seriousViolations(page, "body"), [], "axe on the details panel");
  await page.screenshot({ path: join(RESULTS, "keys-details-panel.png") });
  await page.keyboard.press("Escape");
  await panel.waitFor({ state: "hidden" });
  // The focus goes back to the name button that opened the panel, not to the page's body.
  await page
    .waitForFunction(
      () => document.activeElement?.getAttribute("aria-label") === "Details of Long gone",
      null,
      {
        timeout: 3000,
      },
    )
    .catch(async () =>
      assert.fail(
        `the focus is on ${await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 100))}`,
      ),
    );
  await page.getByRole("textbox", { name: "Search", exact: true }).fill("");
});

test("the details panel copies the publicApiKey without showing it, and disables (once confirmed) and enables the key", async () => {
  const target = (await allKeys()).find((key) => key.name === "Soon gone") as Key;
  await page.getByRole("textbox", { name: "Search", exact: true }).fill("soon gone");
  await row("Soon gone").getByRole("button", { name: "Details of Soon gone" }).click();
  const panel = page.getByRole("dialog", { name: "Key “Soon gone”" });
  await panel.waitFor();
  const full = await bridge<{ publicApiKey: string }>("keys.revealPublicApiKey", {
    accountKey: "_",
    key: target.key,
  });
  await panel.getByRole("button", { name: "Copy the publicApiKey of Soon gone" }).click();
  await page.waitForFunction(
    async (value) => (await navigator.clipboard.readText()) === value,
    full.publicApiKey,
    {
      timeout: 3000,
    },
  );
  assert.equal(await panel.getByTestId("revealed-public-api-key").count(), 0, "copied, not shown");
  assert.equal(((await panel.textContent()) ?? "").includes(full.publicApiKey), false);

  await panel.getByRole("button", { name: "Disable" }).click();
  const confirm = page.getByRole("dialog", { name: "Disable “Soon gone”?" });
  await confirm.getByRole("button", { name: "Disable key" }).click();
  await panel.getByRole("button", { name: "Enable" }).waitFor();
  await panel
    .getByTestId("key-state-explanation")
    .getByText(/^Disabled/)
    .waitFor();
  assert.equal((await allKeys()).find((key) => key.key === target.key)?.enabled, false);
  await row("Soon gone").getByTestId("key-state").getByText("Disabled").waitFor();
  await page.screenshot({ path: join(RESULTS, "keys-details-disabled.png") });

  await panel.getByRole("button", { name: "Enable" }).click();
  await panel.getByRole("button", { name: "Disable" }).waitFor();
  assert.equal((await allKeys()).find((key) => key.key === target.key)?.enabled, true);
  await page.keyboard.press("Escape");
  await panel.waitFor({ state: "hidden" });
  await page.getByRole("textbox", { name: "Search", exact: true }).fill("");
});

test("a key id search shows that key alone: select-all selects it, nothing else; an unknown id shows no row", async () => {
  const target = (await allKeys()).find((key) => key.name === "filler 07") as Key;
  const search = page.getByRole("textbox", { name: "Search", exact: true });
  await search.fill(target.key);
  await page.getByTestId("search-matches").getByText("filler 07").waitFor();
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=key-row]").length === 1);
  assert.equal(await rows().first().getByTestId("key-name").textContent(), "filler 07");
  await page.getByRole("checkbox", { name: "Select every loaded key" }).check();
  await page.getByTestId("bulk-count").getByText("1 key selected").waitFor();
  assert.equal(await page.getByText(/Select all .* matching the filter/).count(), 0);
  await page.getByRole("checkbox", { name: "Select every loaded key" }).uncheck();
  await search.fill("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
  await page.getByText("No key of this account has that key id.").waitFor();
  assert.equal(await rows().count(), 0);
  await search.fill("");
  await rows().first().waitFor();
});

test("keys made elsewhere show after Refresh, and when the window gets the focus back", async () => {
  await page.getByRole("textbox", { name: "Search", exact: true }).fill("elsewhere");
  await page.getByTestId("key-list-no-match").waitFor();
  await bridge("keys.create", { accountKey: "_", request: { name: "made elsewhere 1" } });
  await page.getByRole("button", { name: "Refresh", exact: true }).click();
  await row("made elsewhere 1").waitFor();
  await bridge("keys.create", { accountKey: "_", request: { name: "made elsewhere 2" } });
  // The admin was in another window and comes back.
  await page.evaluate(() => window.dispatchEvent(new Event("visibilitychange")));
  await row("made elsewhere 2").waitFor();
  await page.getByRole("textbox", { name: "Search", exact: true }).fill("");
});

test("a new key is scrolled to and marked, and Esc in a changed Edit dialog asks before discarding", async () => {
  await page.getByRole("button", { name: "New key", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "New API key" });
  await dialog.getByLabel("Name").fill("zz newest key");
  await dialog.getByRole("checkbox", { name: "ALL (every API)" }).check();
  await dialog.getByRole("button", { name: "Create key" }).click();
  await page.getByRole("dialog", { name: "Key created" }).getByRole("button", { name: "Done" }).click();
  const created = row("zz newest key");
  await created.waitFor();
  assert.equal(await created.getAttribute("data-highlighted"), "true");
  assert.ok(await inSight(created), "the new row is scrolled into the window's view (it is the 65th)");

  const edit = created.getByRole("button", { name: "Edit zz newest key" });
  await edit.click();
  const editing = page.getByRole("dialog", { name: "Edit “zz newest key”" });
  await editing.getByLabel("Name").fill("zz renamed");
  await page.keyboard.press("Escape");
  const ask = editing.getByRole("alertdialog", { name: "Discard your changes?" });
  await ask.waitFor();
  await ask.getByRole("button", { name: "Keep editing" }).click();
  assert.equal(await editing.getByLabel("Name").inputValue(), "zz renamed", "the change is still there");
  await page.keyboard.press("Escape");
  await ask.getByRole("button", { name: "Discard changes" }).click();
  await editing.waitFor({ state: "hidden" });
  assert.ok(
    (await allKeys()).some((key) => key.name === "zz newest key"),
    "nothing was saved",
  );
  // Unchanged, Esc closes at once, and the focus is back on the row's Edit.
  await edit.click();
  await editing.waitFor();
  await page.keyboard.press("Escape");
  await editing.waitFor({ state: "hidden" });
  assert.equal(await ask.count(), 0);
  await page.waitForFunction(
    () => document.activeElement?.getAttribute("aria-label") === "Edit zz newest key",
    null,
    { timeout: 3000 },
  );
});

test("in a sub-account, New TFA key + copy makes a TFA key there, and the heading names the sub-account", async () => {
  await bridge("accounts.addSubAccount", { username: "team-b", password: "team-b-password-1" });
  const sub = (await bridge<{ accountKey: string; username: string }[]>("accounts.list")).find(
    (account) => account.username === "team-b",
  );
  assert.ok(sub);
  await page.reload();
  await page.getByRole("combobox", { name: "Account", exact: true }).click();
  await page.getByRole("option", { name: "team-b (sub-account)", exact: true }).click();
  await page.getByTestId("keys-heading").getByText("API keys of team-b (sub-account)").waitFor();
  await page.getByRole("button", { name: "New TFA key + copy" }).click();
  const ask = page.getByRole("dialog", { name: "New TFA key" });
  await ask.getByLabel("Name").fill("team-b 2FA");
  await ask.getByRole("button", { name: "Create and copy" }).click();
  await page.getByRole("dialog", { name: "Key created" }).getByRole("button", { name: "Done" }).click();
  await row("team-b 2FA").waitFor();
  const keys = await allKeys(sub.accountKey);
  assert.deepEqual(
    keys.map((key) => [key.name, key.permissions]),
    [["team-b 2FA", ["TFA"]]],
  );
  assert.ok(!(await allKeys()).some((key) => key.name === "team-b 2FA"), "not in the owner's account");
});

test("a key created beyond the loaded pages is shown on top, marked, in view", async () => {
  const sub = (await bridge<{ username: string; accountKey: string }[]>("accounts.list")).find(
    (account) => account.username === "team-b",
  );
  assert.ok(sub);
  // 205 keys more: the first page (200) does not reach the end, where a new key is in creation order.
  for (let first = 0; first < 205; first += 15) {
    await Promise.all(
      Array.from({ length: Math.min(15, 205 - first) }, (_, index) =>
        bridge("keys.create", {
          accountKey: sub.accountKey,
          request: { name: `team-b bulk ${String(first + index).padStart(3, "0")}` },
        }),
      ),
    );
  }
  await page.reload();
  await page.getByRole("combobox", { name: "Account", exact: true }).click();
  await page.getByRole("option", { name: "team-b (sub-account)", exact: true }).click();
  await page.getByTestId("keys-heading").getByText("API keys of team-b (sub-account)").waitFor();
  await row("team-b bulk 000").waitFor();
  await page.getByRole("button", { name: "New key", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "New API key" });
  await dialog.getByLabel("Name").fill("team-b newest");
  await dialog.getByRole("checkbox", { name: "ALL (every API)" }).check();
  await dialog.getByRole("button", { name: "Create key" }).click();
  await page.getByRole("dialog", { name: "Key created" }).getByRole("button", { name: "Done" }).click();
  const created = row("team-b newest");
  await created.waitFor();
  assert.equal(await created.getAttribute("data-highlighted"), "true");
  assert.equal(await rows().first().getByTestId("key-name").textContent(), "team-b newest");
  assert.ok(await inSight(created), "the new row is in the window's view");
  // A key beyond the loaded pages is found by its hint too (the search asks the whole account).
  const far = (await allKeys(sub.accountKey)).find((key) => key.name === "team-b bulk 204");
  assert.ok(far);
  const search = page.getByRole("textbox", { name: "Search", exact: true });
  await search.fill(far.publicApiKeyHint);
  await page
    .getByTestId("search-matches")
    .getByText(/Found by publicApiKey hint: team-b bulk 204/)
    .waitFor();
  await search.fill("");
  // Another view (a sort) puts it back where the service lists it.
  await page.getByRole("combobox", { name: "Sort", exact: true }).selectOption({ label: "Name A–Z" });
  await row("team-b 2FA").waitFor();
  assert.notEqual(await rows().first().getByTestId("key-name").textContent(), "team-b newest");
  await page.getByRole("combobox", { name: "Sort", exact: true }).selectOption({ label: "Oldest first" });
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

test("creating a key on an unreachable remote says unreachable, not refused", async (t) => {
  const remote = await bridge<{ id: string }>("profiles.add", {
    name: "Down",
    baseUrl: `http://127.0.0.1:${await freePort()}`,
    username: "admin",
    password: "admin-password-1",
  });
  const local = (await bridge<{ id: string; kind: string }[]>("profiles.list")).find(
    (p) => p.kind === "local",
  );
  assert.ok(local);
  t.after(() => bridge("profiles.activate", { id: local.id }));
  await bridge("profiles.activate", { id: remote.id });
  await page.getByRole("button", { name: "New key", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "New API key" });
  await dialog.getByLabel("Name").fill("never sent");
  await dialog.getByRole("checkbox", { name: "ALL (every API)" }).check();
  await dialog.getByRole("button", { name: "Create key" }).click();
  const alert = dialog.getByRole("alert");
  await alert.getByText("The service is unreachable: nothing was saved").waitFor();
  assert.doesNotMatch((await alert.textContent()) ?? "", /refused/);
  await page.keyboard.press("Escape");
  assert.deepEqual(
    pageProblems.filter((problem) => !/Failed to load resource/.test(problem)),
    [],
  );
});

/** Whether a row is wholly in the window, below the table's sticky head row. */
function inSight(locator: Locator): Promise<boolean> {
  return locator.evaluate((row) => {
    const head = document.querySelector(".kd-keys-thead")?.getBoundingClientRect();
    const box = row.getBoundingClientRect();
    return head !== undefined && box.top >= head.bottom - 1 && box.bottom <= window.innerHeight + 1;
  });
}

/** Whether the table's first row is in the window, right under its head row (run in the page). */
function firstRowInSight(): boolean {
  const head = document.querySelector(".kd-keys-thead")?.getBoundingClientRect();
  const first = document.querySelector('[data-testid="key-row"][aria-rowindex="2"]')?.getBoundingClientRect();
  return head !== undefined && first !== undefined && Math.abs(first.top - head.bottom) <= 2;
}
