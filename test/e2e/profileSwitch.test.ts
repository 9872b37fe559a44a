import assert from "node:assert/strict";
import { join } from "node:path";
import { atWidths } from "../harness/atWidths.ts";
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
import { type SilentProxy, startSilentProxy } from "../harness/silentProxy.ts";
import { RESULTS } from "../harness/uiSession.ts";
import { uiSuite } from "../harness/uiSuite.ts";
import { callBridge } from "../harness/webHostProcess.ts";

/**
 * Issue 32's blocker, end to end in Chromium: switching from Local to a slow remote profile never
 * leaves Local's rows live under the remote's name, the header always says (in its own colour)
 * which profile is active, and a toggle reaches the service its row came from.
 */

const REMOTE_USER = "team-admin";
const REMOTE_PASSWORD = "team-password-1";
const KEYS_PATH = "/settings/1/accounts/_/api-keys";

let remoteDir: string;
let remote: ServeProcess | undefined;
let proxy: SilentProxy | undefined;

const { test, session, bridge, before, after } = uiSuite({
  name: "profile-switch",
  context: { viewport: { width: 1280, height: 800 } },
});

before(async () => {
  remoteDir = await makeTempDir("keydesk-e2e-remote-team-");
  await addAccount(remoteDir, REMOTE_USER, REMOTE_PASSWORD);
  remote = await startServe({ dataDir: remoteDir });
  const created = await request(remote.url, {
    method: "POST",
    path: KEYS_PATH,
    authorization: basic(REMOTE_USER, REMOTE_PASSWORD),
    body: { name: "team-billing-key" },
  });
  assert.equal(created.status, 200, created.text);
  const port = Number(new URL(remote.url).port);
  proxy = await startSilentProxy("127.0.0.1", port);
  await bridge("keys.create", { request: { name: "checkout-prod-bob-001" } });
  await bridge("profiles.add", {
    name: "team",
    baseUrl: `http://127.0.0.1:${proxy.port}`,
    username: REMOTE_USER,
    password: REMOTE_PASSWORD,
  });
});

after(async () => {
  await proxy?.close();
  if (remote) assert.equal((await remote.stop("SIGTERM")).code, 0);
  if (remoteDir) await removeDir(remoteDir);
});

test("switching to a slow remote profile clears Local's rows at once, says what loads, and an action then reaches the remote only", async () => {
  if (!remote || !proxy) return;
  const { page, problems, host } = session;
  await page.goto(host.pageUrl);
  const rows = page.getByTestId("key-row");
  await rows.filter({ hasText: "checkout-prod-bob-001" }).waitFor();
  const switcher = page.getByTestId("profile-switcher");
  assert.equal(
    await page.getByRole("combobox", { name: "Active profile" }).inputValue(),
    "Local (this computer)",
  );
  const localColor = await switcher.getAttribute("data-profile-color");

  proxy.slowDown(2_500);
  await page.getByRole("combobox", { name: "Active profile" }).click();
  await page.getByRole("option", { name: "team (remote)" }).click();
  // While the remote answers slowly: the header names it, nothing of Local's is left to click.
  await page.getByTestId("profile-switching").or(page.getByLabel("Loading keys")).first().waitFor();
  assert.equal(await rows.filter({ hasText: "checkout-prod-bob-001" }).count(), 0, "Local's rows are gone");
  await page.screenshot({ path: join(RESULTS, "profile-switch-loading-1280.png") });

  await rows.filter({ hasText: "team-billing-key" }).waitFor({ timeout: 20_000 });
  proxy.slowDown(0);
  assert.equal(await page.getByRole("combobox", { name: "Active profile" }).inputValue(), "team (remote)");
  const remoteColor = await switcher.getAttribute("data-profile-color");
  assert.notEqual(remoteColor, localColor, "the remote has a colour of its own");
  assert.equal(await rows.filter({ hasText: "checkout-prod-bob-001" }).count(), 0);
  await page.screenshot({ path: join(RESULTS, "profile-switch-remote-1280.png") });

  // The toggle of the remote's row disables the remote's key, and Local's key is untouched.
  // The switch's track takes the click (its input is under it), as an admin's pointer does.
  await page
    .locator(".mantine-Switch-root")
    .filter({ has: page.getByRole("switch", { name: "team-billing-key enabled" }) })
    .locator(".mantine-Switch-track")
    .click();
  const remoteEnabled = async () => {
    const answer = await request((remote as ServeProcess).url, {
      path: KEYS_PATH,
      authorization: basic(REMOTE_USER, REMOTE_PASSWORD),
    });
    return (answer.json as { apiKeys: { name: string; enabled: boolean }[] }).apiKeys.find(
      (key) => key.name === "team-billing-key",
    )?.enabled;
  };
  await page.getByRole("dialog").getByRole("button", { name: "Disable key" }).click();
  await eventually("the remote's key disabled", async () =>
    (await remoteEnabled()) === false ? true : undefined,
  );
  const local = await callBridge<{ keys: { name: string; enabled: boolean }[] }>(host, "keys.page", {
    profile: "local",
    accountKey: "_",
  }).catch((error: Error) => error);
  assert.ok(
    local instanceof Error && /PROFILE_CHANGED|nothing was done/.test(local.message),
    "Local is not the active profile",
  );
  await callBridge(host, "profiles.activate", { id: "local" });
  const localKeys = await callBridge<{ keys: { name: string; enabled: boolean }[] }>(host, "keys.page", {
    accountKey: "_",
  });
  assert.deepEqual(
    localKeys.keys.map((key) => [key.name, key.enabled]),
    [["checkout-prod-bob-001", true]],
  );
  assert.deepEqual(problems, []);
});

test("the dialogs that change or show keys, the details drawer and the Copied notice name the profile and account", async () => {
  if (!remote || !proxy) return;
  const { page, problems, host } = session;
  const profiles = await callBridge<{ id: string; name: string }[]>(host, "profiles.list");
  const team = profiles.find((profile) => profile.name === "team");
  await callBridge(host, "profiles.activate", { id: team?.id });
  await page.goto(host.pageUrl);
  const teamRow = page.getByTestId("key-row").filter({ hasText: "team-billing-key" });
  await teamRow.waitFor();
  const actsOnTeam = "Acts on profile “team”, account team-admin (own account)";
  const actingOn = (scope: ReturnType<typeof page.getByRole>) =>
    scope.getByRole("note", { name: actsOnTeam }).waitFor();

  await page.getByRole("button", { name: "New key" }).click();
  const create = page.getByRole("dialog", { name: "New API key" });
  await actingOn(create);
  await atWidths(page, (width) => page.screenshot({ path: join(RESULTS, `acting-on-new-key-${width}.png`) }));
  await create.getByRole("button", { name: "Cancel" }).click();
  await create.waitFor({ state: "hidden" });

  await page.getByRole("button", { name: "New TFA key + copy" }).click();
  const tfa = page.getByRole("dialog", { name: "New TFA key" });
  await actingOn(tfa);
  await tfa.getByRole("button", { name: "Cancel" }).click();
  await tfa.waitFor({ state: "hidden" });

  await teamRow.getByRole("button", { name: "Copy the publicApiKey of team-billing-key" }).click();
  await page
    .getByText(
      "The publicApiKey of “team-billing-key” (profile “team”, account team-admin (own account)) is on the clipboard",
      { exact: false },
    )
    .waitFor();

  await teamRow.getByRole("button", { name: "Details of team-billing-key" }).click();
  const details = page.getByTestId("key-details");
  await actingOn(details);
  await page.screenshot({ path: join(RESULTS, "acting-on-details-1280.png") });
  await page.getByRole("button", { name: "Close the details" }).click();

  await page.getByRole("tab", { name: "2FA apps" }).click();
  await page.getByRole("button", { name: "New application" }).click();
  const application = page.getByRole("dialog", { name: "New 2FA application" });
  await actingOn(application);
  await atWidths(page, (width) =>
    page.screenshot({ path: join(RESULTS, `acting-on-2fa-application-${width}.png`) }),
  );
  await application.getByRole("button", { name: "Cancel" }).click();
  await callBridge(host, "profiles.activate", { id: "local" });
  assert.deepEqual(problems, []);
});

test("a profile switched in another window while an edit is open: the edit is closed with a notice that nothing was saved", async () => {
  if (!remote || !proxy) return;
  const { page, problems, host } = session;
  await callBridge(host, "profiles.activate", { id: "local" });
  await page.goto(host.pageUrl);
  const row = page.getByTestId("key-row").filter({ hasText: "checkout-prod-bob-001" });
  await row.getByRole("button", { name: "Edit checkout-prod-bob-001" }).click();
  const dialog = page.getByRole("dialog", { name: "Edit “checkout-prod-bob-001”" });
  await dialog.getByLabel("Name").fill("checkout-prod-bob-002");

  const profiles = await callBridge<{ id: string; name: string }[]>(host, "profiles.list");
  await callBridge(host, "profiles.activate", {
    id: profiles.find((profile) => profile.name === "team")?.id,
  });
  await page.getByText("Your edit of “checkout-prod-bob-001” was not saved", { exact: false }).waitFor();
  await dialog.waitFor({ state: "hidden" });
  await page.screenshot({ path: join(RESULTS, "profile-switch-edit-lost-1280.png") });

  await callBridge(host, "profiles.activate", { id: "local" });
  const names = (await bridge<{ keys: { name: string }[] }>("keys.page", { accountKey: "_" })).keys.map(
    (key) => key.name,
  );
  assert.ok(
    names.includes("checkout-prod-bob-001") && !names.includes("checkout-prod-bob-002"),
    "nothing saved",
  );
  assert.deepEqual(problems, []);
});
