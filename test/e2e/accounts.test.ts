import assert from "node:assert/strict";
import { createServer } from "node:net";
import { join } from "node:path";
import { seriousViolations } from "../harness/axe.ts";
import { cutInputText } from "../harness/layoutChecks.ts";
import { RESULTS } from "../harness/uiSession.ts";
import { uiSuite } from "../harness/uiSuite.ts";

/**
 * The account switcher and sub-accounts end to end in Debian's Chromium through the browser host:
 * adding a sub-account asks for the password twice with a strength hint and says which account was
 * added; the switcher shows whole names; an unreachable remote profile is said in words.
 */

const LONG_NAME = "regional-payments-team.emea-production@example.org";

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const {
  test,
  page,
  host,
  bridge,
  before,
  problems: pageProblems,
} = uiSuite({
  name: "accounts",
  context: { viewport: { width: 1280, height: 800 } },
});

before(async () => {
  await page.goto(host.pageUrl);
  await page.getByTestId("service-status").waitFor({ timeout: 15_000 });
});

const switcher = () => page.getByRole("combobox", { name: "Account", exact: true });

test("the sub-account form sends nothing it marks invalid: a 5-character password and a username with a space stay in the form", async () => {
  await page.getByRole("button", { name: "Add sub-account" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByRole("textbox", { name: "Username", exact: true }).fill("qa short");
  await dialog.getByRole("textbox", { name: "Password", exact: true }).fill("abcde");
  await dialog.getByRole("textbox", { name: "Confirm password", exact: true }).fill("abcde");
  assert.match((await dialog.getByTestId("password-strength").textContent()) ?? "", /at least 8 characters/);
  await dialog.getByRole("button", { name: "Add sub-account" }).click();
  await dialog.getByText("The password must be at least 8 characters.").waitFor();
  await dialog.getByText(/^A username is 1 to 64 characters from letters, digits/).waitFor();
  assert.equal((await bridge<unknown[]>("accounts.list")).length, 1, "nothing was added");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await dialog.waitFor({ state: "hidden" });
});

test("adding a sub-account asks for the password twice, hints at its strength and names the account added", async () => {
  await page.getByRole("button", { name: "Add sub-account" }).click();
  const dialog = page.getByRole("dialog");
  const password = dialog.getByRole("textbox", { name: "Password", exact: true });
  const confirmation = dialog.getByRole("textbox", { name: "Confirm password", exact: true });
  await dialog.getByRole("textbox", { name: "Username", exact: true }).fill("qa-sub");
  await password.fill("qa-sub-1");
  assert.match((await dialog.getByTestId("password-strength").textContent()) ?? "", /^Weak/);
  await password.fill("Tulip-Moon-River-88");
  assert.match((await dialog.getByTestId("password-strength").textContent()) ?? "", /^Strong/);
  await confirmation.fill("Tulip-Moon-River-89");
  await dialog.getByRole("button", { name: "Add sub-account" }).click();
  await dialog.getByText("The passwords do not match").waitFor();
  assert.deepEqual(
    await seriousViolations(page, '[role="dialog"]'),
    [],
    "the dialog with its hint and error",
  );
  await page.screenshot({ path: join(RESULTS, "accounts-add-sub-account.png") });
  const before = await bridge<unknown[]>("accounts.list");
  assert.equal(before.length, 1, "nothing was added");

  await confirmation.fill("Tulip-Moon-River-88");
  await dialog.getByRole("button", { name: "Add sub-account" }).click();
  await dialog.waitFor({ state: "hidden" });
  const accounts = await bridge<{ accountKey: string; username: string }[]>("accounts.list");
  const added = accounts.find((account) => account.username === "qa-sub");
  assert.ok(added);
  await page.getByText(`qa-sub was added (account ${added.accountKey}) and is now in view.`).waitFor();
  assert.equal(await switcher().inputValue(), "qa-sub (sub-account)");
  assert.deepEqual(pageProblems, []);
});

test("the account select shows whole names: a dropdown as wide as the longest, the chosen one in a tooltip", async () => {
  await bridge("accounts.addSubAccount", { username: LONG_NAME, password: "long-name-password-1" });
  await page.reload();
  await page.getByTestId("service-status").waitFor();
  for (const [width, height] of [
    [800, 500],
    [1280, 800],
  ] as const) {
    await page.setViewportSize({ width, height });
    await switcher().click();
    const option = page.getByRole("option", { name: `${LONG_NAME} (sub-account)` });
    await option.waitFor();
    const shown = await option.evaluate((element) => {
      // One line box per line of text: a name squeezed into a narrow dropdown wraps into several.
      const tops = new Set<number>();
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let text = walker.nextNode(); text !== null; text = walker.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(text);
        for (const rect of range.getClientRects()) tops.add(Math.round(rect.top));
      }
      const lines = tops.size;
      const box = element.getBoundingClientRect();
      return {
        lines,
        inside: box.left >= 0 && box.right <= window.innerWidth,
        clipped: element.scrollWidth > element.clientWidth,
      };
    });
    assert.deepEqual(
      shown,
      { lines: 1, inside: true, clipped: false },
      `${width}×${height}: the option shows the whole name on one line, inside the window`,
    );
    await page.screenshot({ path: join(RESULTS, `accounts-switcher-${width}x${height}.png`) });
    await option.click();
    assert.equal(await switcher().inputValue(), `${LONG_NAME} (sub-account)`);
    const field = await switcher().evaluate((input: HTMLInputElement) => ({
      cut: input.scrollWidth > input.clientWidth,
      ellipsis: getComputedStyle(input).textOverflow === "ellipsis",
      width: Math.round(input.getBoundingClientRect().width),
    }));
    assert.deepEqual(
      { cut: field.cut, ellipsis: field.ellipsis },
      { cut: true, ellipsis: true },
      `${width}×${height}: a name too long for the header ends in "…" (${field.width}px)`,
    );
    assert.deepEqual(
      await cutInputText(page, "header"),
      [],
      `${width}×${height}: and reads whole in its tooltip`,
    );
    await page.screenshot({ path: join(RESULTS, `accounts-switcher-chosen-${width}x${height}.png`) });
  }
  await switcher().hover();
  await page.getByRole("tooltip").getByText(`Account in view: ${LONG_NAME} (sub-account)`).waitFor();
  await page.mouse.move(0, 0);
  assert.deepEqual(pageProblems, []);
});

test("with an unreachable remote profile active, the switcher says 'unreachable' in words", async () => {
  const profile = await bridge<{ id: string }>("profiles.add", {
    name: "Staging",
    baseUrl: `http://127.0.0.1:${await closedPort()}`,
    username: "admin",
    password: "whatever-1",
  });
  await bridge("profiles.activate", { id: profile.id });
  await page.reload();
  const note = page.getByTestId("account-switcher-unreachable");
  await note.waitFor();
  assert.equal(await note.textContent(), "Staging unreachable");
  // The field itself is described by the note, for screen readers too.
  assert.equal(await switcher().getAttribute("aria-describedby"), await note.getAttribute("id"));
  assert.equal(await switcher().getAttribute("aria-invalid"), "true");
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForFunction(
      (wanted) => document.documentElement.dataset.mantineColorScheme === wanted,
      scheme,
    );
    assert.deepEqual(await seriousViolations(page, "header"), [], `the header, ${scheme}`);
    await page.screenshot({ path: join(RESULTS, `accounts-unreachable-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: "light" });

  await bridge("profiles.activate", { id: "local" });
  await page.reload();
  await page.getByTestId("service-status").waitFor();
  await switcher().waitFor();
  assert.equal(await note.count(), 0, "the Local profile is reachable");
  // The unreachable remote's failed requests are expected console errors of the browser.
  assert.deepEqual(
    pageProblems.filter((problem) => !/Failed to load resource/.test(problem)),
    [],
  );
});
