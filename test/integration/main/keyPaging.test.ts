import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startKeydeskCore } from "../../../electron/main/core.ts";
import type { KeydeskCore } from "../../../electron/main/corePorts.ts";
import { DATABASE_FILE } from "../../../electron/service/dataDir.ts";
import { SessionVault } from "../../../electron/vault/sessionVault.ts";
import type { ApiKeyView } from "../../../shared/bridge.ts";
import { backdateKeys } from "../../harness/backdateKeys.ts";
import { type ForeignRemote, startForeignRemote } from "../../harness/foreignRemote.ts";
import { makeTempDir, removeDir, request } from "../../harness/keyServiceProcess.ts";
import { MemoryClipboard } from "../../harness/memoryClipboard.ts";
import { allKeys, fails, ok } from "./dispatchAssertions.ts";

/**
 * keys.page and keys.count through the real core: against the embedded Keydesk service, and
 * against a remote that does not page (test/harness/foreignRemote.ts answers every list whole),
 * which main then pages itself: no answer holds more than the limit asked for.
 */

let appDir: string;
let core: KeydeskCore;
let foreign: ForeignRemote;
let foreignProfileId: string;
const FOREIGN_KEYS = 1_203;

before(async () => {
  appDir = await makeTempDir("keydesk-paging-");
  core = await startKeydeskCore({
    dataDir: appDir,
    vault: new SessionVault("paging test: secrets in memory"),
    clipboard: new MemoryClipboard(),
    defaultServicePort: 0,
  });
  foreign = await startForeignRemote();
  for (let index = 0; index < FOREIGN_KEYS; index++) {
    const key = `key_${randomUUID()}`;
    foreign.keys.set(key, {
      name: index % 100 === 7 ? `foreign ${index} marked` : `foreign ${index}`,
      key,
      publicApiKey: `pk-${randomUUID()}-${index}`,
      accountKey: "acct-foreign",
      permissions: index % 3 === 0 ? ["TFA"] : ["ALL"],
      enabled: index % 2 === 0,
    });
  }
  foreignProfileId = (
    await ok(core, "profiles.add", {
      name: "Foreign",
      baseUrl: foreign.url,
      username: foreign.username,
      password: foreign.password,
    })
  ).id;
});

after(async () => {
  await core?.close();
  await foreign?.close();
  if (appDir) await removeDir(appDir);
});

/** Every page of a query, checking each one's size. */
async function walk(
  args: { query?: Record<string, unknown>; limit: number },
  check: (page: ApiKeyView[]) => void = () => {},
): Promise<{ keys: ApiKeyView[]; pages: number }> {
  const keys: ApiKeyView[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: { keys: ApiKeyView[]; nextCursor: string | null } = await ok(core, "keys.page", {
      ...args,
      ...(cursor !== null && { cursor }),
    });
    assert.ok(page.keys.length <= args.limit, `a page of ${page.keys.length} keys, limit ${args.limit}`);
    check(page.keys);
    keys.push(...page.keys);
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== null && pages < 100);
  return { keys, pages };
}

test("the embedded service's keys come a page at a time in creation order, filtered and counted", async () => {
  const names = Array.from({ length: 7 }, (_, index) => `local ${index}${index % 2 ? " odd" : ""}`);
  for (const name of names) await ok(core, "keys.create", { request: { name } });
  const first = await ok(core, "keys.page", { limit: 3 });
  assert.deepEqual(
    first.keys.map((key) => key.name),
    names.slice(0, 3),
  );
  assert.ok(first.nextCursor, "a cursor to the next page");
  assert.equal("publicApiKey" in (first.keys[0] as object), false, "keys reach the renderer as views");
  const { keys, pages } = await walk({ limit: 3 });
  assert.deepEqual(
    keys.map((key) => key.name),
    names,
  );
  assert.equal(pages, 3);
  assert.deepEqual(await ok(core, "keys.count", {}), { count: 7 });

  const odd = await walk({ query: { nameContains: " ODD " }, limit: 2 });
  assert.deepEqual(
    odd.keys.map((key) => key.name),
    names.filter((name) => name.endsWith("odd")),
  );
  assert.deepEqual(await ok(core, "keys.count", { query: { nameContains: "odd" } }), { count: 3 });
  const [disabled] = odd.keys;
  assert.ok(disabled);
  await ok(core, "keys.setEnabled", { key: disabled.key, enabled: false });
  assert.deepEqual(
    (await allKeys(core, { query: { enabled: false } })).map((key) => key.key),
    [disabled.key],
  );
  assert.deepEqual(await ok(core, "keys.count", { query: { enabled: true } }), { count: 6 });
  assert.deepEqual(await ok(core, "keys.count", { query: { permission: "TFA" } }), { count: 0 });
  // 200 rows when the renderer does not say.
  assert.equal((await ok(core, "keys.page", {})).keys.length, 7);
});

test("a remote that does not page is paged by main: never more than the limit per answer", async () => {
  await ok(core, "profiles.activate", { id: foreignProfileId });
  try {
    const expected = [...foreign.keys.values()].map((key) => key.key);
    const before = foreign.seen.length;
    const { keys, pages } = await walk({ limit: 500 });
    assert.equal(pages, 3);
    assert.deepEqual(
      keys.map((key) => key.key),
      expected,
      "every key once, in the remote's order",
    );
    const lists = foreign.seen
      .slice(before)
      .filter((line) => line.startsWith("GET /settings/1/accounts/_/api-keys"));
    assert.equal(
      lists.length,
      1,
      `the whole list was asked for once, then paged from memory: ${lists.join(", ")}`,
    );
    assert.deepEqual(await ok(core, "keys.count", {}), { count: FOREIGN_KEYS });

    // Filters the remote does not know are applied by main, and paged the same way.
    const marked = await walk({ query: { nameContains: "MARKED" }, limit: 5 });
    assert.deepEqual(
      marked.keys.map((key) => key.name),
      [...foreign.keys.values()].map((key) => key.name).filter((name) => name.endsWith("marked")),
    );
    assert.equal(marked.pages, 3);
    const tfaEnabled = [...foreign.keys.values()].filter(
      (key) => key.enabled && key.permissions.includes("TFA"),
    ).length;
    assert.deepEqual(await ok(core, "keys.count", { query: { permission: "TFA", enabled: true } }), {
      count: tfaEnabled,
    });
    assert.equal(
      (await walk({ query: { permission: "TFA", enabled: true }, limit: 500 })).keys.length,
      tfaEnabled,
    );
  } finally {
    await ok(core, "profiles.activate", { id: "local" });
  }
});

test("main's cursors outlive a profile switch: the list is fetched again, not mixed with another's", async () => {
  await ok(core, "profiles.activate", { id: foreignProfileId });
  try {
    const first = await ok(core, "keys.page", { limit: 100 });
    assert.ok(first.nextCursor);
    await ok(core, "profiles.activate", { id: "local" });
    await ok(core, "keys.page", { limit: 100 });
    await ok(core, "profiles.activate", { id: foreignProfileId });
    const second = await ok(core, "keys.page", { limit: 100, cursor: first.nextCursor });
    assert.deepEqual(
      second.keys.map((key) => key.key),
      [...foreign.keys.values()].slice(100, 200).map((key) => key.key),
    );
  } finally {
    await ok(core, "profiles.activate", { id: "local" });
  }
});

test("the embedded service's pages and keys.get carry each key's usage and creation time; unusedForDays filters", async () => {
  const used = await ok(core, "keys.create", { request: { name: "usage used" } });
  const idle = await ok(core, "keys.create", { request: { name: "usage idle" } });
  // Both keys as they would be had they been made 40 days ago; one made now is not "unused for a day".
  backdateKeys(join(appDir, "service", DATABASE_FILE), Date.now() - 40 * 24 * 3_600_000, [
    used.key,
    idle.key,
  ]);
  await ok(core, "keys.create", { request: { name: "usage new" } });
  const profiles = await ok(core, "profiles.list");
  const baseUrl = profiles.find((profile) => profile.kind === "local")?.baseUrl as string;
  for (let index = 0; index < 3; index++) {
    const answer = await request(baseUrl, {
      path: "/2fa/2/applications",
      authorization: `App ${used.publicApiKey}`,
    });
    assert.equal(answer.status, 200, answer.text);
  }
  const page = await ok(core, "keys.page", { query: { nameContains: "usage " }, limit: 10 });
  const [first, second] = page.keys;
  assert.equal(first?.usage?.total.allowed, 3);
  assert.equal(first?.usage?.lastUsedFrom, "127.0.0.1");
  assert.equal(second?.usage?.total.allowed, 0);
  assert.equal(second?.usage?.lastUsedAt, null);
  assert.match(String(first?.createdAt), /^\d{4}-\d\d-\d\dT/);
  const one = await ok(core, "keys.get", { accountKey: "_", key: used.key });
  assert.deepEqual(one.usage, first?.usage);
  assert.equal(one.createdAt, first?.createdAt);
  const unused = await ok(core, "keys.page", {
    query: { nameContains: "usage ", unusedForDays: 1 },
    limit: 10,
  });
  assert.deepEqual(
    unused.keys.map((key) => key.key),
    [idle.key],
  );
  assert.deepEqual(await ok(core, "keys.count", { query: { nameContains: "usage ", unusedForDays: 30 } }), {
    count: 1,
  });
  assert.equal(
    (await fails(core, "keys.page", { query: { unusedForDays: 0 } })).messageId,
    "INVALID_ARGUMENT",
  );
});

test("a remote that does not report usage: keys without usage or createdAt, no error; the unused filter says why it cannot", async () => {
  await ok(core, "profiles.activate", { id: foreignProfileId });
  try {
    const page = await ok(core, "keys.page", { limit: 5 });
    assert.equal(page.keys.length, 5);
    for (const key of page.keys) {
      assert.equal(key.usage, undefined);
      assert.equal(key.createdAt, undefined);
    }
    const first = page.keys[0] as ApiKeyView;
    const one = await ok(core, "keys.get", { accountKey: "_", key: first.key });
    assert.equal(one.usage, undefined);
    const refused = await fails(core, "keys.page", { query: { unusedForDays: 7 }, limit: 5 });
    assert.match(refused.text, /does not report the usage of keys/);
  } finally {
    await ok(core, "profiles.activate", { id: "local" });
  }
});

test("bad cursors and limits are refused as INVALID_ARGUMENT", async () => {
  for (const args of [
    { limit: 0 },
    { limit: 501 },
    { limit: 1.5 },
    { cursor: "" },
    { cursor: "has space" },
    { cursor: "x".repeat(513) },
    { query: { nameContains: "n".repeat(256) } },
    { query: { colour: "red" } },
  ]) {
    const error = await fails(core, "keys.page", args);
    assert.equal(error.messageId, "INVALID_ARGUMENT", JSON.stringify(args));
  }
  assert.equal(
    (await fails(core, "keys.count", { query: { enabled: "yes" } })).messageId,
    "INVALID_ARGUMENT",
  );
  // The embedded service's own cursors are checked by the service; its refusal arrives the same way.
  for (const cursor of ["not-a-cursor", "main:0"]) {
    const refused = await fails(core, "keys.page", { limit: 10, cursor });
    assert.equal(refused.messageId, "INVALID_ARGUMENT", cursor);
    assert.ok(refused.validationErrors?.cursor, JSON.stringify(refused));
  }

  await ok(core, "profiles.activate", { id: foreignProfileId });
  try {
    await ok(core, "keys.page", { limit: 10 });
    for (const cursor of ["main:abc", "main:-1", "main:01", `main:${FOREIGN_KEYS + 1}`, "not-ours"]) {
      const error = await fails(core, "keys.page", { limit: 10, cursor });
      assert.equal(error.messageId, "INVALID_ARGUMENT", cursor);
      assert.ok(error.validationErrors?.cursor, JSON.stringify(error));
    }
    // The last page is empty, not refused.
    assert.deepEqual(await ok(core, "keys.page", { limit: 10, cursor: `main:${FOREIGN_KEYS}` }), {
      keys: [],
      nextCursor: null,
    });
  } finally {
    await ok(core, "profiles.activate", { id: "local" });
  }
});
