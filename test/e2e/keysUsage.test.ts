import assert from "node:assert/strict";
import { join } from "node:path";
import { DATABASE_FILE } from "../../electron/service/dataDir.ts";
import { backdateKeys } from "../harness/backdateKeys.ts";
import { startForeignRemote } from "../harness/foreignRemote.ts";
import { request } from "../harness/keyServiceProcess.ts";
import { RESULTS } from "../harness/uiSession.ts";
import { uiSuite } from "../harness/uiSuite.ts";

/**
 * The usage of keys in the Keys view (issue 14), in Chromium through the browser host: after
 * App-authorized calls to the embedded service, the Last used and Created columns, the usage in
 * a key's details (last calls, counts, refusals by rule), and the "Not used for" filter.
 */

const {
  test,
  session,
  page,
  host,
  bridge,
  rows,
  row,
  before,
  problems: pageProblems,
} = uiSuite({
  name: "keys-usage",
  context: { viewport: { width: 1440, height: 900 }, timezoneId: "Europe/Berlin" },
});

before(async () => {
  const used = await bridge<{ publicApiKey: string }>("keys.create", {
    accountKey: "_",
    request: { name: "busy backend" },
  });
  const fenced = await bridge<{ publicApiKey: string }>("keys.create", {
    accountKey: "_",
    request: { name: "fenced backend", allowedIPs: ["10.1.1.1"] },
  });
  await bridge("keys.create", { accountKey: "_", request: { name: "idle backend" } });
  // The three as if made a month ago; a key made today has not been unused for 7 days.
  backdateKeys(join(session.dataDir, "service", DATABASE_FILE), Date.now() - 30 * 24 * 3_600_000);
  await bridge("keys.create", { accountKey: "_", request: { name: "new backend" } });
  const profiles = await bridge<{ kind: string; baseUrl: string }[]>("profiles.list");
  const baseUrl = profiles.find((profile) => profile.kind === "local")?.baseUrl as string;
  const call = (publicApiKey: string) =>
    request(baseUrl, { path: "/2fa/2/applications", authorization: `App ${publicApiKey}` });
  for (let index = 0; index < 3; index++) assert.equal((await call(used.publicApiKey)).status, 200);
  assert.equal((await call(fenced.publicApiKey)).status, 403);
  callBusy = () => call(used.publicApiKey);
});

let callBusy: () => Promise<{ status: number }>;

test("Last used says when a key last authorized a call, never for an unused one, when a refused-only one was refused; Created says when it was made", async () => {
  await page.goto(host.pageUrl);
  await row("busy backend").waitFor();
  assert.match(
    (await row("busy backend").getByTestId("key-last-used").textContent()) ?? "",
    /^(just now|\d+ s ago)$/,
  );
  assert.match(
    (await row("busy backend")
      .getByTestId("key-last-used")
      .locator("xpath=ancestor::td")
      .getAttribute("title")) ?? "",
    /from 127\.0\.0\.1$/,
  );
  assert.equal(await row("idle backend").getByTestId("key-last-used").textContent(), "never");
  // Every call of the fenced key was refused: not "never", which reads as a key nobody calls.
  assert.match(
    (await row("fenced backend").getByTestId("key-last-used").textContent()) ?? "",
    /^refused (just now|\d+ s ago)$/,
  );
  assert.match(
    (await row("fenced backend")
      .getByTestId("key-last-used")
      .locator("xpath=ancestor::td")
      .getAttribute("title")) ?? "",
    /^No allowed call since usage recording began; 1 refused \(1 from an address not allowed\), the last at .* from 127\.0\.0\.1$/,
  );
  assert.match(
    (await row("new backend").getByTestId("key-created").textContent()) ?? "",
    /^(just now|\d+ s ago)$/,
  );
  await page.screenshot({ path: join(RESULTS, "keys-usage-columns-1440.png") });
  assert.deepEqual(pageProblems, []);
});

test("a toggle keeps the row's Last used and Created (the answer of an update carries neither)", async () => {
  await page.goto(host.pageUrl);
  const busy = row("busy backend");
  await busy.waitFor();
  const lastUsed = (await busy.getByTestId("key-last-used").textContent()) ?? "";
  assert.match(lastUsed, /^(just now|\d+ s ago|\d+ min ago)$/);
  const track = busy
    .locator(".mantine-Switch-root")
    .filter({ has: page.getByRole("switch", { name: "busy backend enabled" }) })
    .locator(".mantine-Switch-track");
  await track.click();
  await page.getByRole("dialog").getByRole("button", { name: "Disable key" }).click();
  await busy.getByTestId("key-state").getByText("Disabled").waitFor();
  assert.match(
    (await busy.getByTestId("key-last-used").textContent()) ?? "",
    /^(just now|\d+ s ago|\d+ min ago)$/,
  );
  assert.doesNotMatch((await busy.getByTestId("key-created").textContent()) ?? "", /^(—|in )/);
  await track.click();
  await busy.getByTestId("key-state").getByText("Enabled").waitFor();
  assert.match(
    (await busy.getByTestId("key-last-used").textContent()) ?? "",
    /^(just now|\d+ s ago|\d+ min ago)$/,
  );
  assert.deepEqual(pageProblems, []);
});

test("a key's details show its usage: last allowed and refused calls, counts, refusals by rule in words", async () => {
  await row("busy backend").getByRole("button", { name: "Details of busy backend" }).click();
  let panel = page.getByRole("dialog", { name: "Key “busy backend”" });
  await panel.waitFor();
  assert.match((await panel.getByTestId("key-usage-last-used").textContent()) ?? "", /from 127\.0\.0\.1$/);
  assert.equal(await panel.getByTestId("key-usage-last-refused").textContent(), "Last refused call: never");
  assert.equal(
    await panel.getByTestId("key-usage-total").textContent(),
    "Since creation: 3 allowed, 0 refused",
  );
  await page.keyboard.press("Escape");
  await panel.waitFor({ state: "hidden" });

  await row("fenced backend").getByRole("button", { name: "Details of fenced backend" }).click();
  panel = page.getByRole("dialog", { name: "Key “fenced backend”" });
  await panel.waitFor();
  await panel
    .getByTestId("key-usage-day")
    .getByText("Last 24 hours: 0 allowed, 1 refused (1 from an address not allowed)")
    .waitFor();
  assert.match((await panel.getByTestId("key-usage-last-refused").textContent()) ?? "", /from 127\.0\.0\.1$/);
  // The drawer slides in: the picture is taken once it is in place.
  await page.waitForFunction(() => {
    const drawer = document.querySelector("[data-testid=key-details]")?.getBoundingClientRect();
    return drawer !== undefined && drawer.right <= window.innerWidth;
  });
  await page.screenshot({ path: join(RESULTS, "keys-usage-details.png") });
  await page.keyboard.press("Escape");
  await panel.waitFor({ state: "hidden" });
});

test("open details follow the key's calls: counts move while the panel is open, without Refresh", async () => {
  await row("busy backend").getByRole("button", { name: "Details of busy backend" }).click();
  const panel = page.getByRole("dialog", { name: "Key “busy backend”" });
  await panel
    .getByTestId("key-usage-total")
    .getByText(/^Since creation: \d+ allowed/)
    .waitFor();
  const before = Number(
    /(\d+) allowed/.exec((await panel.getByTestId("key-usage-total").textContent()) ?? "")?.[1],
  );
  for (let index = 0; index < 4; index++) assert.equal((await callBusy()).status, 200);
  await panel
    .getByTestId("key-usage-total")
    .getByText(`Since creation: ${before + 4} allowed, 0 refused`)
    .waitFor({ timeout: 15_000 });
  await page.keyboard.press("Escape");
  await panel.waitFor({ state: "hidden" });
});

test("Not used for 7 days lists the keys at least a week old without an allowed call in it, never-used ones included", async () => {
  await page.getByRole("combobox", { name: "Not used for", exact: true }).selectOption({ label: "7 days" });
  await row("busy backend").waitFor({ state: "detached" });
  assert.deepEqual((await rows().getByTestId("key-name").allTextContents()).sort(), [
    "fenced backend",
    "idle backend",
  ]);
  await page.getByRole("combobox", { name: "Not used for", exact: true }).selectOption({ label: "Any" });
  await row("busy backend").waitFor();
  assert.deepEqual(pageProblems, []);
});

test("at 800×500 the table keeps the name, state and actions, and scrolls no sideways", async () => {
  await page.setViewportSize({ width: 800, height: 500 });
  await row("busy backend").waitFor();
  const sideways = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
  assert.equal(sideways, false);
  await page.screenshot({ path: join(RESULTS, "keys-usage-800x500.png") });
});

test("a remote that does not report usage shows — in Last used and Created, says why on hover, and raises no error", async () => {
  const foreign = await startForeignRemote();
  try {
    foreign.keys.set("key_1", {
      name: "foreign key",
      key: "key_1",
      publicApiKey: "pk-foreign-1",
      accountKey: "acct-foreign",
      permissions: ["ALL"],
      enabled: true,
    });
    const profile = await bridge<{ id: string }>("profiles.add", {
      name: "Foreign",
      baseUrl: foreign.url,
      username: foreign.username,
      password: foreign.password,
    });
    await bridge("profiles.activate", { id: profile.id });
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.reload();
    await row("foreign key").waitFor();
    const lastUsed = row("foreign key").getByTestId("key-last-used");
    assert.equal(await lastUsed.textContent(), "—");
    assert.equal(
      await lastUsed.locator("xpath=ancestor::td").getAttribute("title"),
      "This service does not report the usage of keys",
    );
    assert.equal(await row("foreign key").getByTestId("key-created").textContent(), "—");
    await row("foreign key").getByRole("button", { name: "Details of foreign key" }).click();
    const panel = page.getByRole("dialog", { name: "Key “foreign key”" });
    await panel
      .getByTestId("key-usage")
      .getByText("This service does not report the usage of keys")
      .waitFor();
    await page.keyboard.press("Escape");
    await panel.waitFor({ state: "hidden" });
    assert.equal(await page.locator(".mantine-Notification-root").count(), 0, "no error toast");
    assert.deepEqual(pageProblems, []);
  } finally {
    await bridge("profiles.activate", { id: "local" });
    await foreign.close();
  }
});
