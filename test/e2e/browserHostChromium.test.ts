import assert from "node:assert/strict";
import { join } from "node:path";
import { seriousViolations } from "../harness/axe.ts";
import { watchPageErrors } from "../harness/chromium.ts";
import { startCookieCatcher } from "../harness/cookieCatcher.ts";
import { REPO_ROOT, request } from "../harness/keyServiceProcess.ts";
import { uiSuite } from "../harness/uiSuite.ts";
import { bridgeAnswer } from "../harness/webHostProcess.ts";

/**
 * The UI end to end in Debian's Chromium, through the browser host (`npm run web`): the built
 * renderer, its bridge shim and token flow, and the real core and embedded key service behind it.
 * Each test opens its own pages (and contexts: a page without the token, another origin).
 */

const { test, host, browser } = uiSuite({ name: "browser-host" });

const bridge = (method: string, args: unknown) =>
  bridgeAnswer<Record<string, unknown>>(host, method, args) as Promise<{
    ok: boolean;
    value: Record<string, unknown>;
  }>;

test("the page opens with its token, shows the service and the keys, and hides publicApiKeys", async () => {
  const created = await bridge("keys.create", { request: { name: "shown in the browser" } });
  assert.equal(created.ok, true);
  const publicApiKey = created.value.publicApiKey as string;

  // Wide enough for the publicApiKey hint's column (it joins from about 1500 px: keyColumns.ts).
  const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
  const problems: string[] = [];
  watchPageErrors(page, problems);
  await page.goto(host.pageUrl);

  await page.getByTestId("key-list").waitFor({ timeout: 15_000 });
  assert.match(
    (await page.getByTestId("service-status").textContent()) ?? "",
    /running at http:\/\/127\.0\.0\.1:\d+/,
  );
  const table = (await page.getByTestId("key-list").textContent()) ?? "";
  assert.match(table, /shown in the browser/);
  assert.ok(table.includes(created.value.publicApiKeyHint as string), table);
  assert.ok(!(await page.content()).includes(publicApiKey), "the full publicApiKey is not in the page");
  assert.ok(!page.url().includes("token="), `the token is taken out of the address bar: ${page.url()}`);
  assert.deepEqual(problems, []);

  await page.screenshot({ path: join(REPO_ROOT, "test-results", "browser-host-keys.png"), fullPage: true });
  await page.close();
});

test("without the token (a bookmark) the page is refused with a page that says how to get a valid address", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const response = await page.goto(host.baseUrl);
  assert.equal(response?.status(), 401);
  assert.match(response?.headers()["content-type"] ?? "", /^text\/html/);
  await page.getByRole("heading", { name: "Keydesk needs the address the browser host printed" }).waitFor();
  const text = (await page.locator("main").textContent()) ?? "";
  assert.match(text, /no session token/);
  assert.match(text, /npm run -s web/);
  assert.match(text, /\?token=/);
  assert.deepEqual(await seriousViolations(page, "main"), []);
  await page.screenshot({ path: join(REPO_ROOT, "test-results", "browser-host-no-token.png") });

  // A token from an earlier start of the host (a bookmark with it, or its cookie) is wrong now.
  const stale = await page.goto(`${host.baseUrl}/?token=${"A".repeat(43)}`);
  assert.equal(stale?.status(), 403);
  await page.getByText(/changes each time the host starts/).waitFor();
  await context.close();
});

test("the cookie Chromium also sends to another local server is no token: that server cannot reveal the owner password, and the page survives a reload", async () => {
  const context = await browser.newContext();
  const catcher = await startCookieCatcher();
  try {
    const page = await context.newPage();
    const problems: string[] = [];
    watchPageErrors(page, problems);
    assert.equal((await bridge("keys.create", { request: { name: "made before the page" } })).ok, true);
    await page.goto(host.pageUrl);
    await page.getByTestId("key-list").getByText("made before the page").waitFor({ timeout: 15_000 });
    assert.ok(!page.url().includes("token="), page.url());

    // A reload: the address has no token any more, and the page gets it back from the tab's
    // sessionStorage; a key created since shows that its bridge calls work.
    const created = await bridge("keys.create", { request: { name: "made before the reload" } });
    assert.equal(created.ok, true);
    await page.reload();
    await page.getByTestId("key-list").getByText("made before the reload").waitFor({ timeout: 15_000 });

    // Same browser context, another port of 127.0.0.1: cookies ignore ports.
    await page.goto(catcher.url);
    await page.getByText("another local server").waitFor();
    const received = catcher.cookies().filter((cookie) => cookie.name.startsWith("keydesk_"));
    assert.ok(received.length > 0, "Chromium sends the host's cookie to the other port too");
    for (const cookie of received) {
      assert.notEqual(cookie.value, host.token, `the cookie ${cookie.name} carries the session token`);
      const reveal = await request(host.baseUrl, {
        method: "POST",
        path: "/bridge/profiles.revealLocalCredentials",
        headers: { "keydesk-token": cookie.value, cookie: `${cookie.name}=${cookie.value}` },
      });
      assert.ok([401, 403].includes(reveal.status), `${reveal.status}: ${reveal.text}`);
      assert.ok(!reveal.text.includes("password"), reveal.text);
    }

    // Back in the same tab, the app still works.
    await page.goBack();
    await page.getByTestId("key-list").getByText("made before the reload").waitFor({ timeout: 15_000 });
    assert.match(
      (await page.getByTestId("service-status").textContent()) ?? "",
      /running at http:\/\/127\.0\.0\.1:\d+/,
    );
    assert.deepEqual(problems, []);

    // A new tab (a bookmark) has the cookie but not the tab's token: the page loads, and says so.
    const bookmark = await context.newPage();
    assert.equal((await bookmark.goto(host.baseUrl))?.status(), 200);
    await bookmark
      .getByText(/session token is missing: open the address keydesk web printed/)
      .first()
      .waitFor();
  } finally {
    await context.close();
    await catcher.close();
  }
});
