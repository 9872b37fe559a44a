import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { seriousViolations } from "../harness/axe.ts";
import { type ForeignRemote, startForeignRemote } from "../harness/foreignRemote.ts";
import { basic, request } from "../harness/keyServiceProcess.ts";
import { RESULTS } from "../harness/uiSession.ts";
import { uiSuite } from "../harness/uiSuite.ts";

/**
 * What the Sync view shows when a remote refuses a change or loses a key, end to end in Debian's
 * Chromium: the browser host linked to a remote written from the spec alone (test/harness/
 * foreignRemote.ts), which can be told to refuse a request and whose keys can vanish.
 */

let foreign: ForeignRemote;
let linkId: number;
let local: { baseUrl: string; username: string; password: string };

interface Key {
  key: string;
  name: string;
}

async function localApi(path: string, method = "GET", body?: unknown): Promise<unknown> {
  const answer = await request(local.baseUrl, {
    method,
    path,
    authorization: basic(local.username, local.password),
    ...(body !== undefined && { body }),
  });
  assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${answer.text}`);
  return answer.json;
}

async function localKey(name: string): Promise<Key> {
  const { apiKeys } = (await localApi("/settings/1/accounts/_/api-keys")) as { apiKeys: Key[] };
  const found = apiKeys.find((key) => key.name === name);
  assert.ok(found, `a local key named ${name}`);
  return found;
}

const foreignKey = (name: string) => [...foreign.keys.values()].find((key) => key.name === name);

function addForeignKey(name: string): void {
  const key = randomBytes(16).toString("hex").toUpperCase();
  foreign.keys.set(key, {
    name,
    key,
    publicApiKey: `${name}-${randomBytes(8).toString("hex")}`,
    accountKey: "F".repeat(32),
    permissions: ["ALL"],
    enabled: true,
  });
}

const { test, page, host, bridge, before, after, problems } = uiSuite({ name: "sync-failures" });

before(async () => {
  foreign = await startForeignRemote();
  addForeignKey("alpha");
  addForeignKey("beta");
  local = await bridge("profiles.revealLocalCredentials");
  const profile = await bridge<{ id: string }>("profiles.add", {
    name: "Provider",
    baseUrl: foreign.url,
    username: foreign.username,
    password: foreign.password,
  });
  const link = await bridge<{ id: number }>("sync.links.create", {
    localAccountKey: "_",
    profileId: profile.id,
    remoteAccountKey: "_",
    intervalSeconds: 3600,
  });
  linkId = link.id;
  await bridge("sync.run", { id: linkId });
  await page.goto(host.pageUrl);
  await page.getByTestId("service-status").waitFor({ timeout: 15_000 });
});

after(async () => {
  await foreign?.close();
});

const syncView = () => page.getByTestId("sync-view");
const linkCard = () => syncView().getByTestId("sync-link");
const outboxRow = (name: string) => syncView().getByTestId("sync-outbox-entry").filter({ hasText: name });

async function syncNow(): Promise<void> {
  const answered = page.waitForResponse((response) => response.url().endsWith("/bridge/sync.run"));
  await linkCard()
    .getByRole("button", { name: /^Sync now/ })
    .click();
  assert.equal((await answered).status(), 200);
}

test("a change the remote refuses shows as failed, in the Sync view and the Keys table, and goes out on Retry", async () => {
  const alpha = await localKey("alpha");
  const remoteAlpha = foreignKey("alpha");
  assert.ok(remoteAlpha);
  foreign.fail({ method: "PUT", path: new RegExp(`${remoteAlpha.key}$`), status: 422 });
  await localApi(`/settings/1/accounts/_/api-keys/${alpha.key}`, "PUT", { name: "alpha renamed" });

  await page.getByRole("tab", { name: "Sync" }).click();
  await syncNow();
  const row = outboxRow("alpha renamed");
  await row.getByText("Failed").waitFor();
  await row.getByText("update refused: the remote answered HTTP 422").waitFor();
  await row.getByRole("cell", { name: "1", exact: true }).waitFor();
  assert.equal(await linkCard().getByTestId("sync-failed").textContent(), "1");

  await page.getByRole("tab", { name: "Keys" }).click();
  const keyRow = page.getByTestId("key-row").filter({ hasText: "alpha renamed" });
  await keyRow.getByTestId("key-sync-state").filter({ hasText: "Sync failed" }).waitFor();

  await page.getByRole("tab", { name: "Sync" }).click();
  assert.deepEqual(await seriousViolations(page, '[data-testid="sync-view"]'), []);
  await page.screenshot({ path: join(RESULTS, "sync-view-failed-change.png"), fullPage: true });
  await row.getByRole("button", { name: "Retry the change of alpha renamed" }).click();
  await row.getByText("Waiting").waitFor();
  await syncNow();
  await row.waitFor({ state: "detached" });
  assert.equal(foreignKey("alpha renamed")?.key, remoteAlpha.key, "the retried change reached the remote");
  assert.deepEqual(problems, []);
});

test("a key gone from the remote is flagged, kept here, and a change to it can be discarded", async () => {
  const remoteBeta = foreignKey("beta");
  assert.ok(remoteBeta);
  foreign.keys.delete(remoteBeta.key);
  await syncNow();
  await syncView().getByTestId("sync-remote-missing-key").filter({ hasText: "beta" }).waitFor();
  assert.equal(await linkCard().getByTestId("sync-remote-missing").textContent(), "1");

  const beta = await localKey("beta");
  await localApi(`/settings/1/accounts/_/api-keys/${beta.key}`, "PUT", { enabled: false });
  await syncNow();
  const row = outboxRow("beta");
  await row.getByText(/no longer has key/).waitFor();
  await row.getByRole("button", { name: "Discard the change of beta" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByText(/It is not sent to the remote/).waitFor();
  assert.deepEqual(await seriousViolations(page, '[role="dialog"]'), []);
  await dialog.getByRole("button", { name: "Discard" }).click();
  await row.waitFor({ state: "detached" });
  assert.equal(await linkCard().getByTestId("sync-failed").textContent(), "0");

  const kept = (await localApi(`/settings/1/accounts/_/api-keys/${beta.key}`)) as { enabled: boolean };
  assert.equal(kept.enabled, false, "the local key keeps its value");
  await page.getByRole("tab", { name: "Keys" }).click();
  const keyRow = page.getByTestId("key-row").filter({ hasText: "beta" });
  await keyRow.getByTestId("key-sync-state").filter({ hasText: "Gone from remote" }).waitFor();
  assert.deepEqual(problems, []);
});

test("a run shows its progress live", async () => {
  await bridge("sync.links.update", { id: linkId, paused: true });
  for (let index = 0; index < 24; index++) {
    const { key } = (await localApi("/settings/1/accounts/_/api-keys", "POST", {
      name: `queued ${index}`,
    })) as Key;
    await localApi(`/settings/1/accounts/_/api-keys/${key}`, "PUT", { enabled: false });
  }
  // Three waves of 8 keys, each update answered 2.5 s late: long enough for the view, which
  // refreshes itself every 5 s (every second once it sees a run), to catch the run in progress.
  foreign.updateDelayMs = 2500;
  await page.getByRole("tab", { name: "Sync" }).click();
  await bridge("sync.links.update", { id: linkId, paused: false });
  await linkCard()
    .getByText(/^Pushing local changes: \d+ of 24$/)
    .waitFor({ timeout: 10_000 });
  assert.equal(await linkCard().getByTestId("sync-progress").count(), 1);
  await linkCard().getByTestId("sync-state").filter({ hasText: "Up to date" }).waitFor({ timeout: 20_000 });
  await linkCard().getByTestId("sync-pending").filter({ hasText: /^0$/ }).waitFor({ timeout: 20_000 });
  foreign.updateDelayMs = 0;
  assert.equal(
    [...foreign.keys.values()].filter((key) => key.name.startsWith("queued ") && !key.enabled).length,
    24,
  );
  assert.deepEqual(problems, []);
});
