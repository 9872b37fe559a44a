import assert from "node:assert/strict";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { AuthType, Infobip } from "@infobip-api/sdk";
import type { Page } from "playwright-core";
import { seriousViolations } from "../harness/axe.ts";
import { watchPageErrors } from "../harness/chromium.ts";
import {
  addAccount,
  basic,
  makeTempDir,
  REPO_ROOT,
  removeDir,
  request,
  type ServeProcess,
  startServe,
} from "../harness/keyServiceProcess.ts";
import { uiSuite } from "../harness/uiSuite.ts";

/**
 * Accounts, profiles and the PIN inbox end to end in Debian's Chromium, through the browser host
 * (its real core and embedded key service) and a second, real `key-service serve` process as the
 * remote service of a profile. Each test opens pages of its own in the suite's browser context.
 */

const RESULTS = join(REPO_ROOT, "test-results");
const REMOTE_USER = "staging-admin";
const REMOTE_PASSWORD = "staging-password-1";

const suite = uiSuite({ name: "profiles", clipboard: true });
const { test, host, context, bridge } = suite;
let remoteDir: string;
let remote: ServeProcess;
let remoteAccountKey: string;

suite.before(async () => {
  remoteDir = await makeTempDir("keydesk-e2e-remote-");
  remoteAccountKey = await addAccount(remoteDir, REMOTE_USER, REMOTE_PASSWORD);
  remote = await startServe({ dataDir: remoteDir, env: { KEY_SERVICE_LOG_LEVEL: "warn" } });
  const created = await request(remote.url, {
    method: "POST",
    path: "/settings/1/accounts/_/api-keys",
    authorization: basic(REMOTE_USER, REMOTE_PASSWORD),
    body: { name: "key on staging" },
  });
  assert.equal(created.status, 200, created.text);
  await bridge("keys.create", { request: { name: "key of the owner" } });
});

suite.after(async () => {
  if (remote) assert.equal((await remote.stop("SIGTERM")).code, 0);
  if (remoteDir) await removeDir(remoteDir);
});

/** A page of the app with its console watched: any error there fails the test at the end. */
async function openApp(): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  watchPageErrors(page, problems);
  await page.goto(host.pageUrl);
  await page.getByTestId("service-status").waitFor({ timeout: 15_000 });
  return { page, problems };
}

/**
 * POSTs to the Local service (as its owner unless another authorization is given) and returns the
 * 200 answer's body: what an app under test or an admin's script does beside the UI.
 */
async function localPost(): Promise<<T>(path: string, body: unknown, authorization?: string) => Promise<T>> {
  const credentials = await bridge<{ baseUrl: string; username: string; password: string }>(
    "profiles.revealLocalCredentials",
  );
  const owner = basic(credentials.username, credentials.password);
  return async <T>(path: string, body: unknown, authorization = owner): Promise<T> => {
    const answer = await request(credentials.baseUrl, { method: "POST", path, authorization, body });
    assert.equal(answer.status, 200, answer.text);
    return answer.json as T;
  };
}

type LocalPost = Awaited<ReturnType<typeof localPost>>;

/** A 2FA application of the Local owner with a 4-digit template: what an app under test sends PINs with. */
async function localApplication(
  call: LocalPost,
  name: string,
  configuration: Record<string, unknown> = {},
): Promise<{ applicationId: string; messageId: string }> {
  const { applicationId } = await call<{ applicationId: string }>("/2fa/2/applications", {
    name,
    configuration,
  });
  const { messageId } = await call<{ messageId: string }>(`/2fa/2/applications/${applicationId}/messages`, {
    messageText: "Code {{pin}}",
    pinType: "NUMERIC",
    pinLength: 4,
  });
  return { applicationId, messageId };
}

/** A TFA key of the Local owner, as the `Authorization` an app sends with it. */
async function localTfaKey(call: LocalPost, name: string): Promise<string> {
  const { publicApiKey } = await call<{ publicApiKey: string }>("/settings/1/accounts/_/api-keys", {
    name,
    permissions: ["TFA"],
  });
  return `App ${publicApiKey}`;
}

/**
 * The words of the PIN states (runs of non-space characters) that the layout broke across lines:
 * each word's own rectangles, read through a Range, lie on more than one line.
 */
async function brokenStateWords(page: Page): Promise<string[]> {
  return await page.evaluate(() => {
    const broken: string[] = [];
    for (const cell of document.querySelectorAll('[data-testid="pin-state"]')) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const word of (node.textContent ?? "").matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, word.index);
          range.setEnd(node, word.index + word[0].length);
          const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
          if (tops.size > 1) broken.push(word[0]);
        }
      }
    }
    return broken;
  });
}

/** A remote profile of a test's own: its service, which the test may stop and start again. */
interface RemoteProfile {
  id: string;
  url: string;
  /** Stops the service (it must exit cleanly); the profile stays. */
  stop(): Promise<void>;
  /** Starts the service again on the same port, with the same data. */
  restart(): Promise<void>;
}

/**
 * A `key-service serve` of the test's own (the remote account, no keys) added as the profile
 * `name`. When the test ends the Local profile is active again, the profile is removed, and the
 * service stops.
 */
async function remoteProfile(t: TestContext, name: string): Promise<RemoteProfile> {
  const dataDir = await makeTempDir("keydesk-e2e-remote-profile-");
  t.after(() => removeDir(dataDir));
  await addAccount(dataDir, REMOTE_USER, REMOTE_PASSWORD);
  let service: ServeProcess | undefined = await startServe({ dataDir });
  const { url, port } = service;
  t.after(async () => {
    await service?.stop("SIGTERM");
  });
  const { id } = await bridge<{ id: string }>("profiles.add", {
    name,
    baseUrl: url,
    username: REMOTE_USER,
    password: REMOTE_PASSWORD,
  });
  t.after(async () => {
    await bridge("profiles.activate", { id: "local" });
    await bridge("profiles.remove", { id });
  });
  return {
    id,
    url,
    async stop() {
      assert.equal((await service?.stop("SIGTERM"))?.code, 0);
      service = undefined;
    },
    async restart() {
      service = await startServe({ dataDir, args: ["--port", String(port)] });
    },
  };
}

async function chooseAccount(page: Page, label: string): Promise<void> {
  await page.getByRole("combobox", { name: "Account", exact: true }).click();
  await page.getByRole("option", { name: label, exact: true }).click();
}

test("a sub-account made in the UI on the Local profile can be switched to and shows its own, empty key list", async () => {
  const { page, problems } = await openApp();
  await page.getByTestId("key-row").filter({ hasText: "key of the owner" }).waitFor();

  await page.getByRole("button", { name: "Add sub-account" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByRole("textbox", { name: "Username", exact: true }).waitFor();
  assert.deepEqual(await seriousViolations(page, '[role="dialog"]'), []);
  await dialog.getByRole("textbox", { name: "Username", exact: true }).fill("not a valid name!");
  await dialog.getByRole("textbox", { name: "Password", exact: true }).fill("qa-sub-password-1");
  await dialog.getByRole("textbox", { name: "Confirm password", exact: true }).fill("qa-sub-password-1");
  await dialog.getByRole("button", { name: "Add sub-account" }).click();
  // The service's field error lands on the field.
  await dialog.getByText("a username is 1 to 64 characters").waitFor();

  await dialog.getByRole("textbox", { name: "Username", exact: true }).fill("qa-sub");
  await dialog.getByRole("button", { name: "Add sub-account" }).click();
  await dialog.waitFor({ state: "hidden" });

  const accounts =
    await bridge<{ accountKey: string; username: string; parentAccountKey: string | null }[]>(
      "accounts.list",
    );
  const sub = accounts.find((account) => account.username === "qa-sub");
  assert.ok(sub, JSON.stringify(accounts));
  assert.notEqual(sub.parentAccountKey, null);
  assert.deepEqual(await bridge("keys.page", { accountKey: sub.accountKey }), { keys: [], nextCursor: null });

  // The new account is chosen at once; its list is empty, the owner's key is not in it.
  const switcher = page.getByRole("combobox", { name: "Account", exact: true });
  assert.equal(await switcher.inputValue(), "qa-sub (sub-account)");
  await page.getByTestId("key-list-empty").waitFor();
  assert.equal(await page.getByTestId("key-row").count(), 0);

  await chooseAccount(page, "owner (own account)");
  await page.getByTestId("key-row").filter({ hasText: "key of the owner" }).waitFor();
  await chooseAccount(page, "qa-sub (sub-account)");
  await page.getByTestId("key-list-empty").waitFor();
  assert.equal(await switcher.inputValue(), "qa-sub (sub-account)");

  await page.screenshot({ path: join(RESULTS, "sub-account-empty.png"), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test("a remote profile is added, tested, activated with its keys shown, and the Local profile comes back", async () => {
  const { page, problems } = await openApp();
  await page.getByRole("tab", { name: "Profiles" }).click();
  const profiles = page.getByTestId("profiles-view");
  await profiles.getByTestId("profile-row").filter({ hasText: "Local" }).waitFor();

  await profiles.getByRole("button", { name: "Add remote profile" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByRole("textbox", { name: "Name", exact: true }).fill("Staging");
  await dialog.getByRole("textbox", { name: "Base URL", exact: true }).fill(remote.url);
  await dialog.getByRole("textbox", { name: "Username", exact: true }).fill(REMOTE_USER);
  await dialog.getByRole("textbox", { name: "Password", exact: true }).fill("not-the-password");
  await dialog.getByRole("button", { name: "Test connection" }).click();
  const refused = dialog.getByTestId("connection-verdict");
  await refused.waitFor();
  assert.match((await refused.textContent()) ?? "", /Reachable: yes.*Credentials accepted: no/s);
  // Adding it as it is asks first: a profile the service refuses is not saved silently.
  await dialog.getByRole("button", { name: "Add profile" }).click();
  const unconfirmed = dialog.getByTestId("profile-unconfirmed");
  await unconfirmed.getByRole("button", { name: "Save anyway" }).waitFor();
  assert.match((await unconfirmed.textContent()) ?? "", /could not confirm this profile/);
  assert.deepEqual(
    (await bridge<{ name: string }[]>("profiles.list")).map((each) => each.name),
    ["Local"],
    "nothing saved",
  );
  await unconfirmed.getByRole("button", { name: "Keep editing" }).click();
  await unconfirmed.waitFor({ state: "detached" });

  await dialog.getByRole("textbox", { name: "Password", exact: true }).fill(REMOTE_PASSWORD);
  // The answer about the wrong password is gone with it: it no longer says anything true.
  await refused.waitFor({ state: "detached" });
  await dialog.getByRole("button", { name: "Test connection" }).click();
  await dialog.getByTestId("connection-verdict").getByText("Credentials accepted: yes").waitFor();
  assert.match(
    (await dialog.getByTestId("connection-verdict").textContent()) ?? "",
    new RegExp(remoteAccountKey),
  );
  assert.deepEqual(await seriousViolations(page, '[role="dialog"]'), []);
  await dialog.getByRole("button", { name: "Add profile" }).click();
  await dialog.waitFor({ state: "hidden" });

  const staging = profiles.getByTestId("profile-row").filter({ hasText: "Staging" });
  await staging.waitFor();
  await page.getByRole("button", { name: "Test connection of Staging" }).click();
  const verdict = profiles.getByTestId("connection-verdict");
  await verdict.getByText("Credentials accepted: yes").waitFor();
  assert.match((await verdict.textContent()) ?? "", /Reachable: yes/);
  assert.match((await verdict.textContent()) ?? "", new RegExp(`Account: ${remoteAccountKey}`));

  await page.getByRole("button", { name: "Activate Staging" }).click();
  await staging.getByTestId("active-badge").waitFor();
  const listed = await bridge<{ name: string; active: boolean }[]>("profiles.list");
  assert.deepEqual(
    listed.map((profile) => [profile.name, profile.active]),
    [
      ["Local", false],
      ["Staging", true],
    ],
  );
  await page.getByRole("tab", { name: "Keys" }).click();
  await page.getByTestId("key-row").filter({ hasText: "key on staging" }).waitFor();
  // Sub-accounts are added on the Local profile only (the switcher shows on the Keys view only).
  await page.getByRole("combobox", { name: "Account", exact: true }).waitFor();
  assert.equal(await page.getByRole("button", { name: "Add sub-account" }).count(), 0);
  assert.equal(await page.getByTestId("key-row").filter({ hasText: "key of the owner" }).count(), 0);

  await page.getByRole("tab", { name: "Profiles" }).click();
  await page.getByRole("button", { name: "Activate Local" }).click();
  await profiles
    .getByTestId("profile-row")
    .filter({ hasText: "Local" })
    .getByTestId("active-badge")
    .waitFor();
  await page.getByRole("tab", { name: "Keys" }).click();
  await page.getByTestId("key-row").filter({ hasText: "key of the owner" }).waitFor();
  assert.equal(await page.getByTestId("key-row").filter({ hasText: "key on staging" }).count(), 0);

  // Edit keeps the saved password when the field is left empty; Remove asks first.
  await page.getByRole("tab", { name: "Profiles" }).click();
  await page.getByRole("button", { name: "Edit Staging" }).click();
  await dialog.getByRole("textbox", { name: "Name", exact: true }).fill("Staging EU");
  await dialog.getByRole("button", { name: "Save" }).click();
  await dialog.waitFor({ state: "hidden" });
  await page.getByRole("button", { name: "Test connection of Staging EU" }).click();
  await profiles.getByTestId("connection-verdict").getByText("Credentials accepted: yes").waitFor();
  await page.getByRole("button", { name: "Remove Staging EU" }).click();
  await dialog.getByRole("button", { name: "Remove profile" }).waitFor();
  assert.deepEqual(await seriousViolations(page, '[role="dialog"]'), []);
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await dialog.waitFor({ state: "hidden" });
  assert.equal(await profiles.getByTestId("profile-row").count(), 2);
  await page.getByRole("button", { name: "Remove Staging EU" }).click();
  await dialog.getByRole("button", { name: "Remove profile" }).click();
  await dialog.waitFor({ state: "hidden" });
  await profiles.getByTestId("profile-row").filter({ hasText: "Staging" }).waitFor({ state: "detached" });
  assert.deepEqual(
    (await bridge<{ name: string }[]>("profiles.list")).map((profile) => profile.name),
    ["Local"],
  );

  // A service that is not up yet may still be added, when the admin says so.
  await profiles.getByRole("button", { name: "Add remote profile" }).click();
  await dialog.getByRole("textbox", { name: "Name", exact: true }).fill("Not up yet");
  await dialog.getByRole("textbox", { name: "Base URL", exact: true }).fill("http://127.0.0.1:9");
  await dialog.getByRole("textbox", { name: "Username", exact: true }).fill("admin");
  await dialog.getByRole("textbox", { name: "Password", exact: true }).fill("some-password");
  await dialog.getByRole("button", { name: "Test connection" }).click();
  const down = dialog.getByTestId("connection-verdict");
  await down.getByText("Reachable: no").waitFor();
  // Never reached, the credentials were not checked: not "accepted: no".
  await down.getByText("Credentials accepted: not checked").waitFor();
  await dialog.getByRole("button", { name: "Add profile" }).click();
  await dialog.getByTestId("profile-unconfirmed").getByRole("button", { name: "Save anyway" }).click();
  await dialog.waitFor({ state: "hidden" });
  assert.deepEqual(
    (await bridge<{ name: string }[]>("profiles.list")).map((profile) => profile.name),
    ["Local", "Not up yet"],
  );
  await page.getByRole("button", { name: "Remove Not up yet" }).click();
  await dialog.getByRole("button", { name: "Remove profile" }).click();
  await dialog.waitFor({ state: "hidden" });

  assert.deepEqual(problems, []);
  await page.close();
});

test("the header describes the active profile's service: a remote one's address, reachable, then unreachable when it stops", async (t) => {
  const team = await remoteProfile(t, "Team server");
  const local = await bridge<{ baseUrl: string }>("profiles.revealLocalCredentials");

  const { page, problems } = await openApp();
  const header = page.getByRole("banner");
  const status = header.getByTestId("service-status");
  const state = header.getByTestId("active-service-state");
  await header.locator('[data-testid="active-service-state"][data-state="reachable"]').waitFor();
  assert.match((await status.textContent()) ?? "", /Profile “Local” \(embedded service\): running at/);
  assert.ok(((await status.textContent()) ?? "").includes(local.baseUrl));

  await page.getByRole("tab", { name: "Profiles" }).click();
  await page.getByRole("button", { name: "Activate Team server" }).click();
  await header.getByText(`Profile “Team server” (remote): ${team.url}`).waitFor();
  await header.locator('[data-testid="active-service-state"][data-state="reachable"]').waitFor();
  assert.equal((await state.textContent())?.trim(), "Reachable");
  assert.ok(
    !((await status.textContent()) ?? "").includes(local.baseUrl),
    "not the embedded service's address",
  );
  // The embedded service stays in view where its profile is: the Profiles view's Local card.
  assert.match(
    (await page.getByTestId("embedded-service-status").textContent()) ?? "",
    new RegExp(`Embedded key service: running at ${local.baseUrl.replaceAll(".", "\\.")}`),
  );
  assert.deepEqual(await seriousViolations(page, "header"), []);
  // The profiles table with a remote row (its Edit and Remove buttons) and the active badge on it.
  assert.deepEqual(await seriousViolations(page, '[data-testid="profiles-view"]'), []);
  // axe leaves text of the very colour of its background to a person ("incomplete"): check it here.
  for (const name of ["Test connection of Team server", "Edit Team server", "Remove Team server"]) {
    const [text, background] = await page
      .getByRole("button", { name })
      .evaluate((button) => [getComputedStyle(button).color, getComputedStyle(button).backgroundColor]);
    assert.notEqual(text, background, `the text of "${name}" shows on its background`);
  }
  await page.screenshot({ path: join(RESULTS, "header-remote-reachable.png") });

  // The team's (empty) key list is loaded, then the server stops: a Refresh that fails keeps the
  // rows it had, and says they are as the service answered at a time it names.
  await page.getByRole("tab", { name: "Keys" }).click();
  await page.getByTestId("key-list-empty").waitFor();
  await team.stop();
  await page.getByRole("button", { name: "Refresh", exact: true }).click();
  const stale = page.getByTestId("keys-stale");
  await stale.waitFor({ timeout: 15_000 });
  assert.match(
    (await stale.textContent()) ?? "",
    /^This list is as Team server answered at .+; it does not answer now, so they may be out of date/,
  );
  await page.screenshot({ path: join(RESULTS, "keys-stale-remote-down.png") });
  await page.getByRole("tab", { name: "Profiles" }).click();

  // The header finds out by itself too (it checks a remote every 10 s).
  const stoppedAt = Date.now();
  await header
    .locator('[data-testid="active-service-state"][data-state="unreachable"]')
    .waitFor({ timeout: 15_000 });
  assert.ok(Date.now() - stoppedAt < 15_000);
  assert.equal((await state.textContent())?.trim(), "Unreachable");
  assert.ok(((await status.textContent()) ?? "").includes(team.url), "still names the remote's address");
  assert.deepEqual(await seriousViolations(page, "header"), []);
  await page.screenshot({ path: join(RESULTS, "header-remote-unreachable.png") });

  // Back on the same port: Check now sees it at once, without waiting for the next check.
  await team.restart();
  await header.getByRole("button", { name: "Check the active profile's service now" }).click();
  await header
    .locator('[data-testid="active-service-state"][data-state="reachable"]')
    .waitFor({ timeout: 5000 });

  await page.getByRole("button", { name: "Activate Local" }).click();
  await header.getByText(/Profile “Local” \(embedded service\): running at/).waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});

test("the Local profile shows the embedded service's address, and its credentials on request", async () => {
  const { page, problems } = await openApp();
  await page.getByRole("tab", { name: "Profiles" }).click();
  const local = page.getByTestId("local-service");
  const credentials = await bridge<{ baseUrl: string; username: string; password: string }>(
    "profiles.revealLocalCredentials",
  );
  assert.equal(await local.getByTestId("local-base-url").inputValue(), credentials.baseUrl);
  assert.ok(!(await page.content()).includes(credentials.password), "the password is not shown before asked");

  await local.getByRole("button", { name: "Reveal credentials" }).click();
  assert.equal(await local.getByTestId("local-username").inputValue(), credentials.username);
  assert.equal(await local.getByTestId("local-password").inputValue(), credentials.password);
  await local.getByRole("button", { name: "Copy Password" }).click();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), credentials.password);

  assert.deepEqual(await seriousViolations(page, '[data-testid="profiles-view"]'), []);
  await page.screenshot({ path: join(RESULTS, "profiles-view.png"), fullPage: true });
  await local.getByRole("button", { name: "Hide credentials" }).click();
  await local.getByRole("button", { name: "Reveal credentials" }).waitFor();
  assert.ok(!(await page.content()).includes(credentials.password), "hidden again");
  assert.deepEqual(problems, []);
  await page.close();
});

test("a PIN sent through the SDK to the local service appears in the inbox without a reload", async () => {
  const credentials = await bridge<{ baseUrl: string; username: string; password: string }>(
    "profiles.revealLocalCredentials",
  );
  const owner = basic(credentials.username, credentials.password);
  const key = await request(credentials.baseUrl, {
    method: "POST",
    path: "/settings/1/accounts/_/api-keys",
    authorization: owner,
    body: { name: "sdk backend", permissions: ["ALL"] },
  });
  assert.equal(key.status, 200, key.text);
  const application = await request(credentials.baseUrl, {
    method: "POST",
    path: "/2fa/2/applications",
    authorization: owner,
    body: { name: "e2e login", enabled: true },
  });
  assert.equal(application.status, 200, application.text);
  const applicationId = (application.json as { applicationId: string }).applicationId;
  const template = await request(credentials.baseUrl, {
    method: "POST",
    path: `/2fa/2/applications/${applicationId}/messages`,
    authorization: owner,
    body: { messageText: "Your e2e code is {{pin}}", pinType: "NUMERIC", pinLength: 6 },
  });
  assert.equal(template.status, 200, template.text);
  const messageId = (template.json as { messageId: string }).messageId;

  const { page, problems } = await openApp();
  await page.getByRole("tab", { name: "PIN inbox" }).click();
  const inbox = page.getByTestId("pin-inbox");
  await inbox.getByTestId("pin-inbox-empty").waitFor();

  const twoFA = new Infobip({
    baseUrl: credentials.baseUrl,
    apiKey: (key.json as { publicApiKey: string }).publicApiKey,
    authType: AuthType.ApiKey,
  }).service.twoFA;
  // The SDK returns (does not throw) axios errors.
  const answer = (await twoFA.sendPINCodeSMS({ applicationId, messageId, to: "41793026731" }, false)) as {
    status?: number;
    data?: { pinId: string };
    response?: { status: number; data: unknown };
  };
  const sent = { status: answer.response?.status ?? answer.status, data: answer.data as { pinId: string } };
  assert.equal(sent.status, 200, JSON.stringify(answer.response?.data ?? answer.data));

  const row = inbox.locator(`[data-testid="pin-row"][data-pin-id="${sent.data.pinId}"]`);
  await row.waitFor({ timeout: 10_000 });
  const [captured] = await bridge<{ pinId: string; pin: string }[]>("pins.list", { to: "41793026731" });
  assert.equal(captured?.pinId, sent.data.pinId);
  assert.equal(await row.getByTestId("pin-value").textContent(), captured.pin);
  assert.match((await row.textContent()) ?? "", /41793026731/);

  await row.getByRole("button", { name: "Copy PIN sent to 41793026731" }).click();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), captured.pin);

  // The filters narrow the list through the service.
  await inbox.getByRole("textbox", { name: "To (phone number)", exact: true }).fill("41700000000");
  await inbox.getByTestId("pin-inbox-empty").waitFor();
  await inbox.getByRole("textbox", { name: "To (phone number)", exact: true }).fill("41793026731");
  await row.waitFor();
  await inbox.getByRole("textbox", { name: "Application ID", exact: true }).fill(applicationId);
  await row.waitFor();
  assert.equal(await inbox.getByTestId("pin-row").count(), 1);

  assert.deepEqual(await seriousViolations(page, '[data-testid="pin-inbox"]'), []);
  await page.screenshot({ path: join(RESULTS, "pin-inbox.png"), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test("a PIN in the inbox turns Expired when its time to live ends, without a reload", async () => {
  const call = await localPost();
  const app = (name: string, configuration: Record<string, unknown>) =>
    localApplication(call, name, configuration);
  const key = await localTfaKey(call, "ttl backend");
  const send = async (application: { applicationId: string; messageId: string }, to: string) =>
    (await call<{ pinId: string }>("/2fa/2/pin", { ...application, to }, key)).pinId;
  // Long enough to be seen valid first on a loaded machine.
  const shortLived = await app("short-lived PINs", { pinTimeToLive: "8s" });
  const longLived = await app("long-lived PINs", { pinTimeToLive: "15m" });

  const { page, problems } = await openApp();
  await page.getByRole("tab", { name: "PIN inbox" }).click();
  const inbox = page.getByTestId("pin-inbox");
  await inbox.getByRole("button", { name: "Refresh" }).waitFor();
  // Marks this document: a reload would lose the mark.
  await page.evaluate(() => {
    (window as unknown as { notReloaded: boolean }).notReloaded = true;
  });

  const longPin = await send(longLived, "41793026741");
  const shortPin = await send(shortLived, "41793026740");
  const stateOf = (pinId: string) =>
    inbox.locator(`[data-testid="pin-row"][data-pin-id="${pinId}"]`).getByTestId("pin-state");
  await stateOf(shortPin).getByText("10 attempts left").waitFor();
  await stateOf(longPin).getByText("10 attempts left").waitFor();
  const [captured] = await bridge<{ pinId: string; expiresAt: string }[]>("pins.list", { to: "41793026740" });
  assert.equal(captured?.pinId, shortPin);
  const expiresAt = Date.parse(captured.expiresAt.replace("+0000", "Z"));
  assert.ok(expiresAt - Date.now() > 1000, "still valid when first shown");

  // The row changes at its expiry: watched from the page every 50 ms, the time it flipped is kept.
  const flippedAt = await page.waitForFunction(
    (id) => {
      const badge = document.querySelector(`[data-pin-id="${id}"] [data-testid="pin-state"]`);
      return badge?.textContent === "Expired" ? Date.now() : false;
    },
    shortPin,
    { polling: 50, timeout: 15_000 },
  );
  const flipped = (await flippedAt.jsonValue()) as number;
  assert.ok(flipped >= expiresAt - 50, `not before the expiry (${flipped - expiresAt} ms)`);
  assert.ok(flipped <= expiresAt + 1000, `within a second of the expiry (${flipped - expiresAt} ms)`);
  assert.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true);
  assert.equal(await stateOf(longPin).textContent(), "10 attempts left", "the 15-minute PIN is still valid");
  await page.screenshot({ path: join(RESULTS, "pin-inbox-expired.png"), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test("a verification changes a PIN's state in the inbox without a reload; a failure test number's message is listed as not delivered", async () => {
  const call = await localPost();
  const { applicationId, messageId } = await localApplication(call, "live state", {
    verifyPinLimit: "10/1s",
  });
  const app = await localTfaKey(call, "live state backend");

  const { page, problems } = await openApp();
  await page.getByRole("tab", { name: "PIN inbox" }).click();
  const inbox = page.getByTestId("pin-inbox");
  await inbox.getByRole("button", { name: "Refresh" }).waitFor();
  await page.evaluate(() => {
    (window as unknown as { notReloaded: boolean }).notReloaded = true;
  });
  const stateOf = (pinId: string) =>
    inbox.locator(`[data-testid="pin-row"][data-pin-id="${pinId}"]`).getByTestId("pin-state");

  const { pinId } = await call<{ pinId: string }>(
    "/2fa/2/pin",
    { applicationId, messageId, to: "41793026750" },
    app,
  );
  await stateOf(pinId).getByText("10 attempts left").waitFor();
  // The inbox lists every account of the profile: each message says whose app asked for it.
  const { username } = await bridge<{ username: string }>("profiles.revealLocalCredentials");
  assert.equal(
    await inbox
      .locator(`[data-testid="pin-row"][data-pin-id="${pinId}"]`)
      .getByTestId("pin-account")
      .textContent(),
    `Account ${username} (own account)`,
  );
  const [captured] = await bridge<{ pinId: string; pin: string }[]>("pins.list", { to: "41793026750" });
  assert.ok(captured);
  const wrong = captured.pin === "0000" ? "1111" : "0000";
  await call(`/2fa/2/pin/${pinId}/verify`, { pin: wrong }, app);
  await stateOf(pinId).getByText("9 attempts left").waitFor({ timeout: 5_000 });
  await call(`/2fa/2/pin/${pinId}/verify`, { pin: captured.pin }, app);
  await stateOf(pinId).getByText("Verified").waitFor({ timeout: 5_000 });

  // Both failure numbers' SMS answer MESSAGE_NOT_SENT: the inbox tells 447700900001's apart by
  // Number Lookup's refusal, and says what became of each PIN.
  for (const [to, ncStatus, shown] of [
    ["447700900002", "NC_DESTINATION_REACHABLE", "MESSAGE_NOT_SENT"],
    ["447700900001", "NC_DESTINATION_NOT_REACHABLE", "NC_DESTINATION_NOT_REACHABLE, MESSAGE_NOT_SENT"],
  ] as const) {
    const failing = await call<{ pinId: string; smsStatus: string; ncStatus: string }>(
      "/2fa/2/pin",
      { applicationId, messageId, to },
      app,
    );
    assert.deepEqual([failing.smsStatus, failing.ncStatus], ["MESSAGE_NOT_SENT", ncStatus]);
    await stateOf(failing.pinId).getByText("Not delivered").waitFor({ timeout: 5_000 });
    assert.equal(await stateOf(failing.pinId).textContent(), `Not delivered${shown} · 10 attempts left`);
  }
  assert.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true);
  await page.screenshot({ path: join(RESULTS, "pin-inbox-live-state.png"), fullPage: true });

  // At 800 px every message is read whole, inside the window, and every time has its day.
  await page.setViewportSize({ width: 800, height: 600 });
  const longText =
    "Your Keydesk sign-in code is {{pin}}. It expires in 10 minutes; never share it with anyone.";
  const { messageId: longMessage } = await call<{ messageId: string }>(
    `/2fa/2/applications/${applicationId}/messages`,
    { messageText: longText, pinType: "NUMERIC", pinLength: 4 },
  );
  const long = await call<{ pinId: string }>(
    "/2fa/2/pin",
    { applicationId, messageId: longMessage, to: "41793026751" },
    app,
  );
  const longRow = inbox.locator(`[data-testid="pin-row"][data-pin-id="${long.pinId}"]`);
  await longRow.waitFor({ timeout: 5_000 });
  const message = longRow.getByTestId("pin-message");
  assert.match((await message.textContent()) ?? "", /never share it with anyone\.$/);
  const whole = await message.evaluate((element) => {
    const box = element.getBoundingClientRect();
    return element.scrollHeight <= element.clientHeight + 1 && box.right <= window.innerWidth;
  });
  assert.equal(whole, true, "the message is neither clamped nor past the window's edge");
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true);
  // Every row inside the window (the state too), and every time with its day ("Nov 29" then the time).
  for (const cell of await inbox.getByTestId("pin-state").all()) {
    assert.ok(((await cell.boundingBox())?.x ?? 801) + ((await cell.boundingBox())?.width ?? 0) <= 800);
  }
  for (const sent of await inbox.getByTestId("pin-sent-at").allTextContents()) {
    assert.match(sent, /^([A-Z][a-z]{2} \d{1,2}|\d{1,2} [A-Z][a-z]{2})\d\d:\d\d:\d\d/, sent);
  }
  await page.screenshot({ path: join(RESULTS, "pin-inbox-800x600.png"), fullPage: true });
  // A state's words stay whole at every width: "NC_DESTINATION_NOT_REACHABLE," is never cut in two.
  for (const [width, height] of [
    [800, 600],
    [1280, 800],
    [1440, 900],
  ] as const) {
    await page.setViewportSize({ width, height });
    assert.deepEqual(await brokenStateWords(page), [], `no state word broken at ${width} px`);
    await page.screenshot({ path: join(RESULTS, `pin-inbox-states-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 800, height: 600 });
  await page.emulateMedia({ colorScheme: "dark" });
  assert.deepEqual(await brokenStateWords(page), []);
  await page.screenshot({ path: join(RESULTS, "pin-inbox-states-800-dark.png"), fullPage: true });
  await page.emulateMedia({ colorScheme: "light" });
  assert.deepEqual(problems, []);
  await page.close();
});

test("switching profile on the PIN inbox never shows the other profile's PINs: none while the new one loads, none when it is unreachable", async (t) => {
  const call = await localPost();
  const application = await localApplication(call, "switching");
  const key = await localTfaKey(call, "switching backend");
  const { pinId } = await call<{ pinId: string }>("/2fa/2/pin", { ...application, to: "41793026751" }, key);
  const team = await remoteProfile(t, "Team PINs");

  const { page, problems } = await openApp();
  await page.getByRole("tab", { name: "PIN inbox" }).click();
  const inbox = page.getByTestId("pin-inbox");
  const localRow = inbox.locator(`[data-testid="pin-row"][data-pin-id="${pinId}"]`);
  await localRow.waitFor();

  await bridge("profiles.activate", { id: team.id });
  await inbox.getByTestId("pin-inbox-empty").waitFor();
  assert.equal(await localRow.count(), 0, "the Local PIN is not listed under the team profile");

  await bridge("profiles.activate", { id: "local" });
  await localRow.waitFor();
  await team.stop();
  await bridge("profiles.activate", { id: team.id });
  // The failure is said once, by the page's banner (with Retry): the inbox adds no alert of its own.
  // (A list still asked of the team while Local was active may first show that refusal there.)
  const banner = page.getByTestId("query-error-banner").filter({ hasText: /unreachable/ });
  await banner.waitFor({ timeout: 15_000 });
  assert.equal(await page.getByRole("alert").count(), 1, "one alert on the page");
  assert.equal(await inbox.getByRole("alert").count(), 0, "none in the inbox");
  assert.equal(await inbox.getByTestId("pin-row").count(), 0, "no rows under an unreachable profile");
  // The team's list from before the failure (empty) is said as of its time, never "No PINs
  // captured yet" under the error as if the service had just answered that.
  const stale = inbox.getByTestId("pin-inbox-stale");
  await stale.waitFor();
  assert.match(
    (await stale.textContent()) ?? "",
    /^This list is as Team PINs answered at \d{1,2}:\d\d:\d\d( [AP]M)?; it does not answer now/,
  );
  assert.match(
    (await inbox.getByTestId("pin-inbox-empty").textContent()) ?? "",
    /^No PINs had been captured as of \d{1,2}:\d\d:\d\d( [AP]M)?\.$/,
  );
  for (const [width, height] of [
    [800, 600],
    [1280, 800],
    [1440, 900],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: join(RESULTS, `pin-inbox-remote-unreachable-${width}.png`) });
  }
  await page.emulateMedia({ colorScheme: "dark" });
  await page.screenshot({ path: join(RESULTS, "pin-inbox-remote-unreachable-1440-dark.png") });
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 800 });
  // Never loaded while unreachable (a filter's list is a list of its own): no list, no alert of the inbox's.
  await inbox.getByTestId("pin-filter-to").fill("4479");
  const notLoaded = inbox.getByTestId("pin-inbox-not-loaded");
  await notLoaded.waitFor({ timeout: 15_000 });
  // It says why there is no list, never that there are no PINs.
  assert.equal(
    await notLoaded.textContent(),
    "The service of Team PINs is unreachable: its PINs cannot be listed until it answers.",
  );
  assert.equal(await inbox.getByRole("alert").count(), 0);
  assert.equal(await inbox.getByTestId("pin-inbox-empty").count(), 0);
  // The unreachable service's error is expected on the page's console; nothing else.
  assert.deepEqual(
    problems.filter((problem) => !/ECONNREFUSED|could not reach|Failed to load/.test(problem)),
    [],
  );
  await page.close();
});
