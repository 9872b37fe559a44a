import assert from "node:assert/strict";
import { join } from "node:path";
import { seriousViolations } from "../harness/axe.ts";
import { RESULTS } from "../harness/uiSession.ts";
import { uiSuite } from "../harness/uiSuite.ts";

/**
 * The History section of a key's details panel in Chromium through the browser host: after an
 * edit in the UI, it shows who changed the key, when, through the desktop app, and old → new.
 */

const {
  test,
  page,
  host,
  bridge,
  row,
  problems: pageProblems,
  before,
} = uiSuite({
  name: "key-history",
  context: {
    viewport: { width: 1280, height: 900 },
    timezoneId: "Europe/Berlin",
  },
});

before(async () => {
  await bridge("keys.create", { accountKey: "_", request: { name: "Audited app" } });
});

test("after an edit, the details panel's History shows who changed what, when and through what", async () => {
  await page.goto(host.pageUrl);
  await row("Audited app").getByRole("button", { name: "Edit Audited app" }).click();
  const dialog = page.getByRole("dialog", { name: "Edit “Audited app”" });
  await dialog.getByLabel("Name").fill("Audited app v2");
  await dialog.getByRole("button", { name: "Save changes" }).click();
  await dialog.waitFor({ state: "hidden" });

  await row("Audited app v2").getByRole("button", { name: "Details of Audited app v2" }).click();
  const panel = page.getByRole("dialog", { name: "Key “Audited app v2”" });
  await panel.waitFor();
  const entries = panel.getByTestId("key-history-entry");
  await entries.nth(1).waitFor();
  assert.equal(await entries.count(), 2);
  const edit = (await entries.nth(0).textContent()) ?? "";
  assert.match(edit, /^Edited/);
  assert.match(edit, /just now|s ago/);
  assert.match(edit, /by owner via the desktop app from 127\.0\.0\.1/);
  assert.match(edit, /Name: Audited app → Audited app v2/);
  const created = (await entries.nth(1).textContent()) ?? "";
  assert.match(created, /^Created/);
  assert.match(created, /Name: Audited app/);
  assert.match(created, /Enabled: yes/);
  assert.doesNotMatch(created, /→/, "a create shows the values it set, not old → new");
  await panel.getByTestId("key-history").scrollIntoViewIfNeeded();
  assert.deepEqual(await seriousViolations(page, "body"), [], "axe on the details panel with its history");
  await page.screenshot({ path: join(RESULTS, "key-history.png") });
  assert.deepEqual(pageProblems, []);
});
