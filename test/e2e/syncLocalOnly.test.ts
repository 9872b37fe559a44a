import assert from "node:assert/strict";
import { join } from "node:path";
import type { Locator } from "playwright-core";
import { formatApiDateTime } from "../../shared/datetime.ts";
import { seriousViolations } from "../harness/axe.ts";
import { eventually } from "../harness/eventually.ts";
import {
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  request,
  type ServeProcess,
  startServe,
} from "../harness/keyServiceProcess.ts";
import { RESULTS } from "../harness/uiSession.ts";
import { uiSuite } from "../harness/uiSuite.ts";

/**
 * The lifecycle parts of sync in Chromium: a link whose remote refuses the credentials is refused
 * in words in the form; keys that were in the account before the link show as local-only (count,
 * list, a "Local only" badge in the Keys table) and are pushed one by one and then all together.
 */

const REMOTE_USER = "team-admin";
const REMOTE_PASSWORD = "team-password-1";
const SIZES = [
  { width: 800, height: 500 },
  { width: 1440, height: 900 },
];

const ALL_SIZES = [{ width: 1280, height: 800 }, ...SIZES];

let remoteDir: string;
let remote: ServeProcess;
let local: { baseUrl: string; username: string; password: string };

async function api(side: "local" | "remote", path: string, method = "GET", body?: unknown) {
  const [url, authorization] =
    side === "local"
      ? [local.baseUrl, basic(local.username, local.password)]
      : [remote.url, basic(REMOTE_USER, REMOTE_PASSWORD)];
  const answer = await request(url, { method, path, authorization, body });
  assert.ok(answer.status < 300, `${method} ${path} on the ${side} service: ${answer.status} ${answer.text}`);
  return answer.json;
}

const remoteKeys = async () =>
  (
    (await api("remote", "/settings/1/accounts/_/api-keys")) as {
      apiKeys: { name: string; enabled: boolean }[];
    }
  ).apiKeys;

const { test, page, host, bridge, row, before, after, problems } = uiSuite({ name: "sync-local-only" });

before(async () => {
  remoteDir = await makeTempDir("keydesk-e2e-sync-local-only-remote-");
  await addAccount(remoteDir, REMOTE_USER, REMOTE_PASSWORD);
  remote = await startServe({ dataDir: remoteDir });
  await api("remote", "/settings/1/accounts/_/api-keys", "POST", { name: "remote gateway" });
  local = await bridge("profiles.revealLocalCredentials");
  for (const name of ["local alpha", "local beta", "local gamma (disabled)"]) {
    const made = (await api("local", "/settings/1/accounts/_/api-keys", "POST", { name })) as { key: string };
    if (name.includes("disabled"))
      await api("local", `/settings/1/accounts/_/api-keys/${made.key}`, "PUT", { enabled: false });
    if (name === "local beta")
      await api("local", `/settings/1/accounts/_/api-keys/${made.key}`, "PUT", {
        validFrom: formatApiDateTime(Date.now() - 2 * 86_400_000),
        validTo: formatApiDateTime(Date.now() - 86_400_000),
      });
  }
  await bridge("profiles.add", {
    name: "Team (old password)",
    baseUrl: remote.url,
    username: REMOTE_USER,
    password: "an old password",
  });
  await bridge("profiles.add", {
    name: "Team",
    baseUrl: remote.url,
    username: REMOTE_USER,
    password: REMOTE_PASSWORD,
  });
  await page.goto(host.pageUrl);
  await page.getByTestId("service-status").waitFor({ timeout: 15_000 });
});

after(async () => {
  if (remote) assert.equal((await remote.stop("SIGTERM")).code, 0);
  if (remoteDir) await removeDir(remoteDir);
});

async function choose(scope: Locator, label: string, option: string | RegExp): Promise<void> {
  await scope.getByRole("combobox", { name: label, exact: true }).click();
  await page.getByRole("option", { name: option }).click();
}

const syncView = () => page.getByTestId("sync-view");
const linkCard = () => syncView().getByTestId("sync-link");
const localOnly = () => linkCard().getByTestId("sync-local-only");

async function closeToasts(): Promise<void> {
  const closeButtons = page.getByRole("button", { name: "Close notification" });
  for (let left = 10; left > 0 && (await closeButtons.count()) > 0; left--) {
    await closeButtons
      .first()
      .click({ timeout: 2000 })
      .catch(() => {}); // closed by itself meanwhile
  }
  await closeButtons.first().waitFor({ state: "detached" });
}

async function screenshots(name: string, locator: Locator): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await locator.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(RESULTS, `${name}-${size.width}x${size.height}.png`) });
  }
}

async function syncNow(): Promise<void> {
  const answered = page.waitForResponse((response) => response.url().endsWith("/bridge/sync.run"));
  await linkCard()
    .getByRole("button", { name: /^Sync now/ })
    .click();
  assert.equal((await answered).status(), 200);
}

test("a link whose remote refuses the credentials is refused in words, and nothing is linked", async () => {
  await page.getByRole("tab", { name: "Sync" }).click();
  const form = syncView().getByTestId("sync-link-form");
  await choose(form, "Remote profile", /^Team \(old password\)/);
  await form.getByRole("button", { name: "Link accounts" }).click();
  const failure = form.getByTestId("sync-link-check-failure");
  await failure.getByText("The remote refused the credentials").waitFor();
  assert.match((await failure.textContent()) ?? "", /refused the username or password; check them/);
  assert.match((await failure.textContent()) ?? "", /Nothing was linked/);
  // Said once, in the form: the picker of remote accounts (which failed too) says it under itself.
  await form.getByText(/Sub-accounts could not be listed: the username or password is wrong/).waitFor();
  assert.equal(await page.getByTestId("query-error-banner").count(), 0);
  assert.equal(await syncView().getByTestId("sync-links-empty").count(), 1);
  assert.deepEqual(await bridge("sync.links.list"), []);
  assert.deepEqual(await seriousViolations(page, '[data-testid="sync-view"]'), []);
  await screenshots("sync-link-check-failure", failure);
});

test("keys made before the link are shown local-only, in the Sync view and the Keys table, and pushed", async () => {
  const form = syncView().getByTestId("sync-link-form");
  await choose(form, "Remote profile", /^Team \(team-admin/);
  await form.getByRole("button", { name: "Link accounts" }).click();
  await linkCard().waitFor();
  assert.equal(await form.getByTestId("sync-link-check-failure").count(), 0);
  // Linking ran the first sync: the notice says what it did, not to press Sync now.
  await page.getByText("Linked and synced").waitFor({ timeout: 30_000 });
  await page
    .getByText(
      "1 key pulled from the remote, 0 pushed. 3 keys of this account stay here until you push them.",
    )
    .waitFor();
  assert.equal(await page.getByText(/Press “Sync now”/).count(), 0);
  for (const size of ALL_SIZES) {
    await page.setViewportSize(size);
    await page.screenshot({ path: join(RESULTS, `sync-linked-notice-${size.width}x${size.height}.png`) });
  }
  await syncNow();
  await localOnly().getByTestId("sync-local-only-count").filter({ hasText: "3 keys" }).waitFor();
  assert.equal(await localOnly().getByTestId("sync-local-only-key").count(), 3);
  // Each says the state the Keys table says: an expired key is not "Enabled".
  const stateOf = async (name: string) =>
    (
      await localOnly()
        .getByTestId("sync-local-only-key")
        .filter({ hasText: name })
        .getByTestId("sync-local-only-state")
        .textContent()
    )?.trim();
  assert.equal(await stateOf("local alpha"), "Enabled");
  assert.equal(await stateOf("local beta"), "Expired");
  assert.equal(await stateOf("local gamma (disabled)"), "Disabled");
  // The outbox and the recent runs come before the local-only list, which may be 50 rows long.
  const topOf = async (testId: string) => (await linkCard().getByTestId(testId).boundingBox())?.y ?? -1;
  const listTop = await topOf("sync-local-only");
  for (const section of ["sync-outbox", "sync-run-log"]) {
    const top = await topOf(section);
    assert.ok(top >= 0 && top < listTop, `${section} (${top}) above the local-only list (${listTop})`);
  }
  assert.deepEqual(await seriousViolations(page, '[data-testid="sync-view"]'), []);
  await closeToasts();
  await screenshots("sync-local-only", localOnly());

  // The Keys table marks them; the mirrored remote key has no mark.
  await page.getByRole("tab", { name: "Keys" }).click();
  await row("local alpha").getByTestId("key-sync-state").filter({ hasText: "Local only" }).waitFor();
  await row("remote gateway").waitFor();
  assert.equal(await row("remote gateway").getByTestId("key-sync-state").count(), 0);
  await screenshots("keys-local-only", row("local alpha"));

  // The mark opens the Sync view at that key's Push; one by one.
  await row("local alpha").getByTestId("key-sync-state").click();
  const pushAlpha = localOnly().getByRole("button", { name: "Push local alpha to the remote" });
  await eventually("the key's Push to have the focus", async () =>
    (await pushAlpha.evaluate((button) => button === document.activeElement)) ? true : undefined,
  );
  await pushAlpha.click();
  await localOnly().getByTestId("sync-local-only-count").filter({ hasText: "2 keys" }).waitFor();
  await syncNow();
  await eventually("local alpha on the remote", async () =>
    (await remoteKeys()).some((key) => key.name === "local alpha") ? true : undefined,
  );

  // All, after a confirmation.
  await localOnly().getByRole("button", { name: "Push all 2" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByText(/takes the remote's publicApiKey/).waitFor();
  assert.deepEqual(await seriousViolations(page, '[role="dialog"]'), []);
  await dialog.getByRole("button", { name: "Push all 2" }).click();
  await dialog.waitFor({ state: "hidden" });
  await localOnly().waitFor({ state: "detached" });
  await syncNow();
  await linkCard().getByTestId("sync-state").filter({ hasText: "Up to date" }).waitFor();
  const there = await remoteKeys();
  assert.deepEqual(there.map((key) => key.name).sort(), [
    "local alpha",
    "local beta",
    "local gamma (disabled)",
    "remote gateway",
  ]);
  assert.equal(there.find((key) => key.name === "local gamma (disabled)")?.enabled, false);

  await page.getByRole("tab", { name: "Keys" }).click();
  await row("local beta").waitFor();
  await eventually("no Local only mark left", async () =>
    (await page.getByTestId("key-sync-state").filter({ hasText: "Local only" }).count()) === 0
      ? true
      : undefined,
  );
  assert.deepEqual(problems, []);
});

/** The row's enabled switch (its input is hidden: the track is what one clicks). */
const toggle = (scope: Locator) => scope.locator(".mantine-Switch-track").click();

const REACHES_TEAM = /also reaches Team \(http:\/\/127\.0\.0\.1:\d+\/?\) at the next sync/;

test("a synced key's row names its remote, and each confirmation of a change to it says it reaches the remote", async () => {
  // The profile of the old password goes: the link's remote is then the one profile of its address.
  const profiles = await bridge<{ id: string; name: string }[]>("profiles.list");
  const old = profiles.find((profile) => profile.name === "Team (old password)");
  await bridge("profiles.remove", { id: old?.id });
  await page.reload();
  await page.getByRole("tab", { name: "Keys" }).click();
  const gateway = row("remote gateway");
  const mark = gateway.getByTestId("key-synced");
  await mark.waitFor();
  assert.equal((await mark.textContent())?.trim(), "⇄ Team");
  assert.match(
    (await gateway.getByRole("button", { name: /^Synced: / }).getAttribute("aria-label")) ?? "",
    /^Synced: Synced with Team \(http:\/\/127\.0\.0\.1:\d+\/?\): a change made here reaches it at the next sync/,
  );
  for (const size of ALL_SIZES) {
    await page.setViewportSize(size);
    await mark.hover();
    await page.getByRole("tooltip").filter({ hasText: "Synced with Team" }).waitFor();
    await page.screenshot({ path: join(RESULTS, `keys-synced-mark-${size.width}x${size.height}.png`) });
    const box = await mark.boundingBox();
    const cell = await gateway.locator("td").first().boundingBox();
    assert.ok(
      box && cell && box.x + box.width <= cell.x + cell.width + 1,
      `the mark fits its cell at ${size.width}`,
    );
  }
  await page.mouse.move(0, 0);

  // A remote's name longer than the mark is cut in its middle: "(PROD)" at its end stays in view.
  const team = (await bridge<{ id: string; name: string }[]>("profiles.list")).find(
    (profile) => profile.name === "Team",
  );
  await bridge("profiles.edit", { id: team?.id, name: "Team server of the payments platform (PROD)" });
  await page.reload();
  await page.getByRole("tab", { name: "Keys" }).click();
  await page.setViewportSize({ width: 1280, height: 800 });
  await mark.filter({ hasText: /\(PROD\)$/ }).waitFor();
  const label = mark.locator(".mantine-Badge-label");
  assert.match((await label.textContent()) ?? "", /^⇄ Team .*….*\(PROD\)$/);
  // Every synced mark reads its cut text whole inside the badge (no "…" of the browser's at its end).
  for (const badge of await page.getByTestId("key-synced").all()) {
    assert.ok(
      await badge.evaluate((root) => {
        const text = root.querySelector(".mantine-Badge-label") as HTMLElement;
        const inner = root.getBoundingClientRect();
        const padding = Number.parseFloat(getComputedStyle(root).paddingRight);
        return (
          text.scrollWidth <= text.clientWidth + 1 &&
          text.getBoundingClientRect().right <= inner.right - padding + 1 &&
          text.getBoundingClientRect().left >= inner.left
        );
      }),
      `the mark ${await badge.textContent()} reads whole`,
    );
  }
  assert.match(
    (await gateway.getByRole("button", { name: /^Synced: / }).getAttribute("aria-label")) ?? "",
    /^Synced: Synced with Team server of the payments platform \(PROD\) \(http/,
  );
  await page.screenshot({ path: join(RESULTS, "keys-synced-mark-long-1280x800.png") });
  await bridge("profiles.edit", { id: team?.id, name: "Team" });
  await page.reload();
  await page.getByRole("tab", { name: "Keys" }).click();
  await mark.filter({ hasText: /^⇄ Team$/ }).waitFor();

  // Disable, then enable: both confirmed, both naming the remote.
  await toggle(gateway);
  let dialog = page.getByRole("dialog", { name: "Disable “remote gateway”?" });
  await dialog.getByTestId("synced-change-notice").filter({ hasText: REACHES_TEAM }).waitFor();
  for (const size of ALL_SIZES) {
    await page.setViewportSize(size);
    await page.screenshot({ path: join(RESULTS, `keys-synced-disable-${size.width}x${size.height}.png`) });
  }
  await dialog.getByRole("button", { name: "Disable key" }).click();
  await dialog.waitFor({ state: "hidden" });
  await gateway.getByTestId("key-state").getByText("Disabled").waitFor();
  await toggle(gateway);
  dialog = page.getByRole("dialog", { name: "Enable “remote gateway”?" });
  await dialog.getByTestId("synced-change-notice").filter({ hasText: REACHES_TEAM }).waitFor();
  await dialog.getByRole("button", { name: "Enable key" }).click();
  await dialog.waitFor({ state: "hidden" });
  await gateway.getByTestId("key-state").getByText("Enabled").waitFor();

  // Edit, and the details drawer's Roll.
  await gateway.getByRole("button", { name: "Edit remote gateway" }).click();
  dialog = page.getByRole("dialog", { name: "Edit “remote gateway”" });
  await dialog.getByTestId("synced-change-notice").filter({ hasText: REACHES_TEAM }).waitFor();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await dialog.waitFor({ state: "hidden" });
  await gateway.getByRole("button", { name: "Details of remote gateway" }).click();
  await page.getByTestId("key-details").getByRole("button", { name: "Roll…" }).click();
  dialog = page.getByRole("dialog", { name: "Roll “remote gateway”" });
  await dialog.getByTestId("synced-change-notice").filter({ hasText: REACHES_TEAM }).waitFor();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await dialog.waitFor({ state: "hidden" });

  // A bulk change that includes it.
  await gateway.getByTestId("key-select").click();
  await page.getByTestId("bulk-bar").getByRole("button", { name: "Disable…" }).click();
  await page
    .getByTestId("bulk-confirm")
    .getByTestId("synced-change-notice")
    .filter({ hasText: /^1 of them is synced: the change also reaches Team/ })
    .waitFor();
  await page.getByTestId("bulk-confirm").getByRole("button", { name: "Cancel" }).click();
  await page.getByTestId("bulk-bar").getByRole("button", { name: "Clear selection" }).click();
  assert.equal((await remoteKeys()).find((key) => key.name === "remote gateway")?.enabled, true);
  assert.deepEqual(problems, []);
});
