import assert from "node:assert/strict";
import { join } from "node:path";
import { seriousViolations } from "../harness/axe.ts";
import { basic, request } from "../harness/keyServiceProcess.ts";
import { RESULTS } from "../harness/uiSession.ts";
import { uiSuite } from "../harness/uiSuite.ts";

/**
 * The 2FA applications view end to end in Debian's Chromium, through the browser host and its real
 * embedded key service: create and edit an application and a template in the UI, field errors from
 * the shared schemas before anything is sent, what the UI saved is what the service's own HTTP API
 * answers; a sub-account in view is explained; light and dark at every window size from the
 * window's minimum, without horizontal overflow, axe clean.
 */

const SIZES = [
  [800, 500],
  [1024, 768],
  [1280, 800],
  [1440, 900],
] as const;

let serviceUrl: string;
let ownerAuth: string;

const {
  test,
  page,
  host,
  bridge,
  before,
  problems: pageProblems,
} = uiSuite({
  name: "tfa",
  context: { viewport: { width: 1280, height: 800 } },
});

before(async () => {
  const local = await bridge<{ baseUrl: string; username: string; password: string }>(
    "profiles.revealLocalCredentials",
  );
  serviceUrl = local.baseUrl;
  ownerAuth = basic(local.username, local.password);
  await page.goto(host.pageUrl);
  await page.getByTestId("service-status").waitFor({ timeout: 15_000 });
});

async function api(path: string): Promise<unknown> {
  const answer = await request(serviceUrl, { path, authorization: ownerAuth });
  assert.equal(answer.status, 200, answer.text);
  return answer.json;
}

async function openTfa(): Promise<void> {
  await page.getByRole("navigation", { name: "Views" }).getByRole("tab", { name: "2FA apps" }).click();
  await page.getByTestId("tfa-view").waitFor();
}

const dialog = () => page.getByRole("dialog");
const field = (name: string) => dialog().getByRole("textbox", { name, exact: true });

test("an application is created in the UI with field errors first, and the service's API answers what was saved", async () => {
  await openTfa();
  await page.getByTestId("application-list-empty").waitFor();
  await page.getByRole("button", { name: "New application" }).click();
  // The service's defaults are shown before anything is sent.
  assert.equal(await field("PIN time to live").inputValue(), "15m");
  assert.equal(await field("Send limit per phone number").inputValue(), "3/1d");
  assert.deepEqual(await seriousViolations(page, '[role="dialog"]'), [], "the new application dialog");

  await field("Name").fill("Checkout login");
  await field("PIN time to live").fill("15x");
  await field("PIN attempts").fill("0");
  await dialog().getByRole("button", { name: "Create application" }).click();
  // The shared schema's words, on the fields, and nothing created.
  await dialog().getByText("must be at least 1").waitFor();
  // In words a person reads first, the provider's notation after.
  await dialog()
    .getByText(/^must be a number and a unit \(ms, s, m, h or d\), for example 15m/)
    .waitFor();
  assert.deepEqual(await api("/2fa/2/applications"), []);

  await field("PIN time to live").fill("10m");
  await field("PIN attempts").fill("5");
  await field("Send limit per phone number").fill("5/1h");
  await dialog().getByRole("checkbox", { name: "Allow verifying a PIN more than once" }).uncheck();
  await dialog().getByRole("button", { name: "Create application" }).click();
  await dialog().waitFor({ state: "hidden" });
  await page.getByTestId("tfa-saved").getByText("Created the application Checkout login.").waitFor();

  const [saved] = (await api("/2fa/2/applications")) as { applicationId: string }[];
  assert.deepEqual(saved, {
    applicationId: saved?.applicationId,
    name: "Checkout login",
    enabled: true,
    configuration: {
      pinAttempts: 5,
      allowMultiplePinVerifications: false,
      pinTimeToLive: "10m",
      verifyPinLimit: "1/3s",
      sendPinPerApplicationLimit: "10000/1d",
      sendPinPerPhoneNumberLimit: "5/1h",
    },
  });
  const card = page.getByTestId("application-card").filter({ hasText: "Checkout login" });
  assert.equal(await card.getByTestId("applicationId-value").textContent(), saved?.applicationId);
  assert.equal(await card.getByTestId("application-state").textContent(), "Enabled");
  assert.deepEqual(pageProblems, []);
});

test("a template is created and edited in the UI, and an application disabled; the API answers the same", async () => {
  const card = page.getByTestId("application-card").filter({ hasText: "Checkout login" });
  // A new application shows its templates at once.
  await card.getByTestId("template-list-empty").waitFor();
  await card.getByRole("button", { name: "New template" }).click();
  const text = dialog().getByRole("textbox", { name: "Message text" });
  await text.fill("Your Shop code");
  await dialog().getByRole("textbox", { name: "PIN length" }).fill("6");
  await field("Sender").fill("Shop");
  await dialog().getByRole("button", { name: "Create template" }).click();
  await dialog().getByText("must contain the PIN placeholder {{pin}}").waitFor();
  await text.fill("Your Shop code: {{pin}}");
  assert.deepEqual(await seriousViolations(page, '[role="dialog"]'), [], "the new template dialog");
  await dialog().getByRole("button", { name: "Create template" }).click();
  await dialog().waitFor({ state: "hidden" });
  const row = card.getByTestId("template-row").filter({ hasText: "Your Shop code: {{pin}}" });
  await row.waitFor();

  const applicationId = (await card.getByTestId("applicationId-value").textContent()) ?? "";
  const [template] = (await api(`/2fa/2/applications/${applicationId}/messages`)) as Record<
    string,
    unknown
  >[];
  assert.equal(template?.messageText, "Your Shop code: {{pin}}");
  assert.equal(template?.pinLength, 6);
  assert.equal(template?.pinType, "NUMERIC");
  assert.equal(template?.senderId, "Shop");
  assert.equal(await row.getByTestId("messageId-value").textContent(), template?.messageId);

  // Editing: clearing the sender removes it; the language is chosen by name.
  await row.getByRole("button", { name: /^Edit template/ }).click();
  await field("Sender").fill("");
  await field("Principal entity ID").fill("1201159");
  await dialog().getByRole("combobox", { name: "Language" }).click();
  await page.getByRole("option", { name: "German (de)" }).click();
  await dialog().getByRole("button", { name: "Save template" }).click();
  await dialog().waitFor({ state: "hidden" });
  await row.getByText("language de").waitFor();
  const [edited] = (await api(`/2fa/2/applications/${applicationId}/messages`)) as Record<string, unknown>[];
  assert.equal(edited?.language, "de");
  assert.equal("senderId" in (edited ?? {}), false, JSON.stringify(edited));
  assert.deepEqual(edited?.regional, { indiaDlt: { principalEntityId: "1201159" } });

  await card.getByRole("button", { name: "Edit Checkout login" }).click();
  await dialog().getByRole("switch", { name: "Enabled" }).uncheck({ force: true });
  await dialog().getByRole("button", { name: "Save application" }).click();
  await dialog().waitFor({ state: "hidden" });
  await card.getByTestId("application-state").getByText("Disabled: sends refused").waitFor();
  assert.equal(((await api(`/2fa/2/applications/${applicationId}`)) as { enabled: boolean }).enabled, false);
  assert.deepEqual(pageProblems, []);
});

test("Esc in a dialog with unsaved changes asks first, Discard drops them; the card enables and disables in one click", async () => {
  await page.getByRole("button", { name: "Edit Checkout login" }).click();
  await field("Name").fill("Checkout login v2");
  await page.keyboard.press("Escape");
  const ask = dialog().getByTestId("discard-changes");
  await ask.waitFor();
  const keep = ask.getByRole("button", { name: "Keep editing" });
  assert.equal(
    await keep.evaluate((button) => button === document.activeElement),
    true,
    "the safe answer has the focus",
  );
  await page.keyboard.press("Enter");
  await ask.waitFor({ state: "hidden" });
  assert.equal(await field("Name").inputValue(), "Checkout login v2");
  await page.keyboard.press("Escape");
  await ask.getByRole("button", { name: "Discard changes" }).click();
  await dialog().waitFor({ state: "hidden" });
  const [application] = (await api("/2fa/2/applications")) as { name: string }[];
  assert.equal(application?.name, "Checkout login");
  // Enabled again from the card, in one click.
  const card = page.getByTestId("application-card").filter({ hasText: "Checkout login" });
  await card.getByRole("button", { name: "Enable Checkout login" }).click();
  await card.getByTestId("application-state").getByText("Enabled", { exact: true }).waitFor();
  assert.equal(((await api("/2fa/2/applications")) as { enabled: boolean }[])[0]?.enabled, true);
  await card.getByRole("button", { name: "Disable Checkout login" }).click();
  await card.getByTestId("application-state").getByText("Disabled: sends refused").waitFor();
  // Without changes, Esc closes at once.
  await page.getByRole("button", { name: "Edit Checkout login" }).click();
  await field("Name").waitFor();
  await page.keyboard.press("Escape");
  await dialog().waitFor({ state: "hidden" });
  assert.deepEqual(pageProblems, []);
});

test("the 2FA view in light and dark from 800×500 to 1440×900: screenshots, axe, no horizontal overflow", async () => {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForFunction(
      (wanted) => document.documentElement.dataset.mantineColorScheme === wanted,
      scheme,
    );
    for (const [width, height] of SIZES) {
      await page.setViewportSize({ width, height });
      await page.evaluate(
        () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
      );
      // From the top: a full-page shot of a scrolled page draws the fixed header where it was scrolled to.
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: join(RESULTS, `tfa-${width}x${height}-${scheme}.png`), fullPage: true });
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.equal(overflow, 0, `${width}×${height} ${scheme}: nothing wider than the window`);
      for (const button of await page.getByTestId("tfa-view").getByRole("button").all()) {
        const box = await button.boundingBox();
        assert.ok(
          box && box.x >= 0 && box.x + box.width <= width,
          `${width}×${height}: a button is off-screen`,
        );
      }
    }
    assert.deepEqual(
      await seriousViolations(page, '[data-testid="tfa-view"]'),
      [],
      `the 2FA view, ${scheme}`,
    );
    await page.getByRole("button", { name: "Edit Checkout login" }).click();
    // A short window: the dialog's buttons stay on screen (at its bottom edge) while its form scrolls.
    for (const [width, height] of [
      [800, 600],
      [800, 500],
    ] as const) {
      await page.setViewportSize({ width, height });
      for (const name of ["Cancel", "Save application"]) {
        const button = dialog().getByRole("button", { name, exact: true });
        const box = await button.boundingBox();
        assert.ok(
          box && box.y >= 0 && box.y + box.height <= height,
          `${width}×${height}: ${name} is on screen`,
        );
        const onTop = await button.evaluate((element) => {
          const r = element.getBoundingClientRect();
          return element.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2));
        });
        assert.ok(onTop, `${width}×${height}: ${name} can be clicked`);
      }
    }
    assert.deepEqual(await seriousViolations(page, '[role="dialog"]'), [], `the edit dialog, ${scheme}`);
    await page.screenshot({ path: join(RESULTS, `tfa-dialog-800x500-${scheme}.png`) });
    await dialog().getByRole("button", { name: "Cancel" }).click();
    await dialog().waitFor({ state: "hidden" });
    await page.getByRole("button", { name: /^Edit template/ }).click();
    assert.deepEqual(await seriousViolations(page, '[role="dialog"]'), [], `the template dialog, ${scheme}`);
    await page.screenshot({ path: join(RESULTS, `tfa-template-dialog-800x500-${scheme}.png`) });
    await dialog().getByRole("button", { name: "Cancel" }).click();
    await dialog().waitFor({ state: "hidden" });
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 800 });
  assert.deepEqual(pageProblems, []);
});

test("with a sub-account in view, the view explains that its applications need its own credentials", async () => {
  await bridge("accounts.addSubAccount", { username: "tfa-sub", password: "tfa-sub-password-1" });
  await page.reload();
  await openTfa();
  // A message of the owner's view does not follow to the sub-account's.
  await page.getByRole("button", { name: "New application" }).click();
  await field("Name").fill("Before the switch");
  await dialog().getByRole("button", { name: "Create application" }).click();
  await page.getByTestId("tfa-saved").getByText("Created the application Before the switch.").waitFor();
  await page.getByRole("combobox", { name: "Account", exact: true }).click();
  await page.getByRole("option", { name: "tfa-sub (sub-account)" }).click();
  await page.getByTestId("tfa-sub-account").waitFor();
  assert.equal(await page.getByTestId("tfa-saved").count(), 0, "the owner's message is gone");
  assert.equal(await page.getByTestId("application-card").count(), 0);
  assert.equal(await page.getByRole("button", { name: "New application" }).count(), 0);
  assert.equal(await page.getByTestId("query-error-banner").count(), 0, "no failing request behind it");
  assert.deepEqual(pageProblems, []);
});
