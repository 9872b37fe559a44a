import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { runCli } from "../../harness/keyServiceProcess.ts";
import {
  API_DATETIME_PATTERN,
  assertApiError,
  assertOk,
  assertValidationError,
  keyPath,
  type Service,
  startService,
} from "./serviceFixture.ts";

/**
 * The audit history over HTTP against a real serve process: an entry for every write path of
 * the API and the command line, with who, how, from where and what changed; filters; paging that
 * holds under concurrent writes; only the caller's own and sub-accounts; nothing secret.
 */

interface Entry {
  time: string;
  accountKey: string;
  actor: string;
  channel: string;
  action: string;
  reason: string | null;
  key: string | null;
  changes: Record<string, { old: unknown; new: unknown }>;
  address: string | null;
}
interface Page {
  entries: Entry[];
  nextCursor: string | null;
}

const OWNER = { username: "owner", password: "owner-Secret-pw-1" };
const SUB = { username: "sub", password: "sub-Secret-pw-2" };
const STRANGER = { username: "stranger", password: "stranger-Secret-pw-3" };
let service: Service;

before(async () => {
  service = await startService([OWNER, { ...SUB, parent: OWNER.username }, STRANGER]);
});
after(() => service.close());

async function audit(username: string, query = ""): Promise<Page> {
  const res = await service.call({ path: `/local/1/audit${query}`, authorization: service.auth(username) });
  return assertOk<Page>(res);
}

async function entriesOfKey(key: string): Promise<Entry[]> {
  return (await audit(OWNER.username, `?key=${key}`)).entries;
}

test("a key created through the API is recorded with who, how, from where and every field it set", async () => {
  const key = await service.createKey(OWNER.username, {
    name: "billing",
    allowedIPs: ["10.0.0.0/8"],
    validTo: "2031-01-01T00:00:00Z",
  });
  const [entry, ...rest] = await entriesOfKey(key.key);
  assert.equal(rest.length, 0);
  assert.ok(entry);
  assert.match(entry.time, API_DATETIME_PATTERN);
  assert.deepEqual(
    { ...entry, time: "" },
    {
      time: "",
      accountKey: service.accountKeys[OWNER.username],
      actor: OWNER.username,
      channel: "api",
      action: "create",
      reason: null,
      key: key.key,
      changes: {
        name: { old: null, new: "billing" },
        allowedIPs: { old: null, new: ["10.0.0.0/8"] },
        permissions: { old: null, new: ["ALL"] },
        validTo: { old: null, new: "2031-01-01T00:00:00.000+0000" },
        enabled: { old: null, new: true },
      },
      address: "127.0.0.1",
    },
  );
});

test("an update records the fields that changed, old and new; enabled true→false is a disable", async () => {
  const key = await service.createKey(OWNER.username, { name: "old name" });
  const put = (body: unknown, headers?: Record<string, string>) =>
    service.call({
      method: "PUT",
      path: keyPath(key.key),
      authorization: service.auth(OWNER.username),
      body,
      ...(headers && { headers }),
      localAddress: "127.0.0.7",
    });
  assertOk(await put({ name: "new name", permissions: ["TFA"] }));
  assertOk(await put({ enabled: false }));
  assertOk(await put({ enabled: true }, { "Keydesk-Client": "desktop", "Keydesk-Action": "bulk" }));
  assertOk(await put({ name: "new name" })); // no change: nothing to record
  const entries = await entriesOfKey(key.key);
  assert.deepEqual(
    entries.map(({ action, channel, reason, changes, address }) => ({
      action,
      channel,
      reason,
      changes,
      address,
    })),
    [
      {
        action: "enable",
        channel: "desktop",
        reason: "bulk",
        changes: { enabled: { old: false, new: true } },
        address: "127.0.0.7",
      },
      {
        action: "disable",
        channel: "api",
        reason: null,
        changes: { enabled: { old: true, new: false } },
        address: "127.0.0.7",
      },
      {
        action: "update",
        channel: "api",
        reason: null,
        changes: {
          name: { old: "old name", new: "new name" },
          permissions: { old: ["ALL"], new: ["TFA"] },
        },
        address: "127.0.0.7",
      },
      {
        action: "create",
        channel: "api",
        reason: null,
        changes: entries.at(-1)?.changes,
        address: "127.0.0.1",
      },
    ],
  );
});

test("a rotation is recorded as rotate on both the successor's create and the old key's update", async () => {
  const headers = { "Keydesk-Client": "desktop", "Keydesk-Action": "rotate" };
  const old = await service.createKey(OWNER.username, { name: "rolled" });
  const successor = assertOk<{ key: string }>(
    await service.call({
      method: "POST",
      path: "/settings/1/accounts/_/api-keys",
      authorization: service.auth(OWNER.username),
      body: { name: "rolled (2)" },
      headers,
    }),
  );
  assertOk(
    await service.call({
      method: "PUT",
      path: keyPath(old.key),
      authorization: service.auth(OWNER.username),
      body: { validTo: "2030-01-02T00:00:00Z" },
      headers,
    }),
  );
  const [created] = await entriesOfKey(successor.key);
  const [shortened] = await entriesOfKey(old.key);
  assert.deepEqual([created?.action, created?.reason, created?.channel], ["rotate", "rotate", "desktop"]);
  assert.deepEqual(
    [shortened?.action, shortened?.changes],
    ["rotate", { validTo: { old: null, new: "2030-01-02T00:00:00.000+0000" } }],
  );
});

test("the 2FA key shortcut is recorded as a create of a TFA key; the entry never shows its publicApiKey", async () => {
  const res = await service.call({
    method: "POST",
    path: "/2fa/2/api-key",
    authorization: service.auth(SUB.username),
    headers: { "Keydesk-Client": "cli" },
  });
  const publicApiKey = assertOk<string>(res);
  const [entry] = (await audit(SUB.username, "?limit=1")).entries;
  assert.ok(entry);
  assert.deepEqual([entry.action, entry.channel, entry.actor], ["create", "cli", SUB.username]);
  assert.deepEqual(entry.changes.permissions, { old: null, new: ["TFA"] });
  assert.equal(JSON.stringify(entry).includes(publicApiKey), false);
});

test("a refused write and an idempotent replay record nothing", async () => {
  const key = await service.createKey(OWNER.username, { name: "steady" });
  const refused = await service.call({
    method: "PUT",
    path: keyPath(key.key),
    authorization: service.auth(OWNER.username),
    body: { validFrom: "2030-01-01T00:00:00Z", validTo: "2029-01-01T00:00:00Z" },
  });
  assertApiError(refused, 400, "BAD_REQUEST");
  const create = () =>
    service.call({
      method: "POST",
      path: "/settings/1/accounts/_/api-keys",
      authorization: service.auth(OWNER.username),
      body: { name: "once only" },
      headers: { "Idempotency-Key": "audit-once" },
    });
  const first = assertOk<{ key: string }>(await create());
  assertOk(await create());
  assert.equal((await entriesOfKey(key.key)).length, 1);
  assert.equal((await entriesOfKey(first.key)).length, 1);
});

test("the command line's account add and passwd are recorded with channel cli, without the password", async () => {
  const added = await audit(OWNER.username, `?account=${service.accountKeys[SUB.username]}`);
  const addEntry = added.entries.find((entry) => entry.action === "account-add");
  assert.ok(addEntry);
  assert.equal(addEntry.channel, "cli");
  assert.equal(addEntry.address, null);
  assert.deepEqual(addEntry.changes, {
    username: { old: null, new: SUB.username },
    parent: { old: null, new: OWNER.username },
  });
  const newPassword = "sub-Changed-pw-9";
  const result = await runCli(
    ["account", "passwd", "--data-dir", service.dataDir, "--username", SUB.username],
    { KEY_SERVICE_PASSWORD: newPassword },
  );
  assert.equal(result.code, 0, result.stderr);
  const [passwd] = (await audit(OWNER.username, `?account=${service.accountKeys[SUB.username]}&limit=1`))
    .entries;
  assert.deepEqual([passwd?.action, passwd?.channel, passwd?.changes], ["account-passwd", "cli", {}]);
  assert.equal(JSON.stringify(passwd).includes(newPassword), false);
  // The fixture's Basic credentials of `sub` are the old ones: set them back for later tests.
  const back = await runCli(
    ["account", "passwd", "--data-dir", service.dataDir, "--username", SUB.username],
    { KEY_SERVICE_PASSWORD: SUB.password },
  );
  assert.equal(back.code, 0, back.stderr);
});

test("a parent reads its sub-accounts' entries; a sub-account only its own; others are 404, an API key 403", async () => {
  const subKey = await service.createKey(SUB.username, { name: "of the sub" });
  const ownerKey = await service.createKey(OWNER.username, { name: "of the owner" });
  const ownerView = await audit(OWNER.username, "?limit=1000");
  assert.ok(ownerView.entries.some((entry) => entry.key === subKey.key));
  const subView = await audit(SUB.username, "?limit=1000");
  assert.ok(subView.entries.some((entry) => entry.key === subKey.key));
  assert.ok(subView.entries.every((entry) => entry.accountKey === service.accountKeys[SUB.username]));
  assert.equal((await audit(SUB.username, `?key=${ownerKey.key}`)).entries.length, 0);
  assert.equal((await audit(STRANGER.username, "?limit=1000")).entries.filter((e) => e.key).length, 0);
  assertApiError(
    await service.call({
      path: `/local/1/audit?account=${service.accountKeys[OWNER.username]}`,
      authorization: service.auth(SUB.username),
    }),
    404,
    "NOT_FOUND",
  );
  assertApiError(
    await service.call({ path: "/local/1/audit", authorization: `App ${ownerKey.publicApiKey}` }),
    403,
    "FORBIDDEN",
  );
});

test("filters by actor, account and time range; bad filters are 400s naming them", async () => {
  const byActor = await audit(OWNER.username, `?actor=${SUB.username}&limit=1000`);
  assert.ok(byActor.entries.length > 0);
  assert.ok(byActor.entries.every((entry) => entry.actor === SUB.username));
  const now = Date.now();
  const future = new Date(now + 60_000).toISOString();
  assert.equal((await audit(OWNER.username, `?from=${future}`)).entries.length, 0);
  const past = new Date(now - 600_000).toISOString();
  const window = await audit(OWNER.username, `?from=${past}&to=${future}&limit=1000`);
  assert.ok(window.entries.length > 0);
  const call = (query: string) =>
    service.call({ path: `/local/1/audit${query}`, authorization: service.auth(OWNER.username) });
  assertValidationError(await call("?from=yesterday"), "from");
  assertValidationError(await call(`?from=${future}&to=${past}`), "to");
  assertValidationError(await call("?key=abc"), "key");
  assertValidationError(await call("?limit=1001"), "limit");
  assertValidationError(await call("?cursor=nope"), "cursor");
  assertValidationError(await call("?sort=time"), "sort");
});

test("pages are newest first and neither repeat nor skip an entry while keys are created concurrently", async () => {
  const account = service.accountKeys[STRANGER.username] as string;
  for (let i = 0; i < 7; i++) await service.createKey(STRANGER.username, { name: `paged ${i}` });
  const pageOf = (cursor: string | null) =>
    audit(
      STRANGER.username,
      `?account=${account}&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
  const first = await pageOf(null);
  // Creates run side by side with the paging from here on: each is newer than every page.
  let writing = true;
  const writer = (async () => {
    for (let i = 0; writing; i++) await service.createKey(STRANGER.username, { name: `meanwhile ${i}` });
  })();
  const seen: Entry[] = [...first.entries];
  try {
    for (let cursor = first.nextCursor; cursor; ) {
      const page: Page = await pageOf(cursor);
      seen.push(...page.entries);
      cursor = page.nextCursor;
    }
  } finally {
    writing = false;
    await writer;
  }
  const keys = seen.filter((entry) => entry.key !== null).map((entry) => entry.key);
  assert.equal(new Set(keys).size, keys.length, "no entry twice");
  const names = seen.filter((e) => e.action === "create").map((e) => e.changes.name?.new);
  assert.deepEqual(
    names,
    [6, 5, 4, 3, 2, 1, 0].map((i) => `paged ${i}`),
    "every entry older than the first page, newest first, and none written during the paging",
  );
  assert.equal(seen.at(-1)?.action, "account-add");
  const after = await audit(STRANGER.username, `?account=${account}&limit=1000`);
  assert.ok(after.entries.some((entry) => entry.changes.name?.new === "meanwhile 0"));
});

test("a page's cursor belongs to its caller and filters: another caller, account or filter is a 400", async () => {
  const sub = service.accountKeys[SUB.username] as string;
  const created = await service.createKey(SUB.username, { name: "audit cursor 1" });
  await service.createKey(SUB.username, { name: "audit cursor 2" });
  const from = new Date(Date.now() - 3_600_000).toISOString();
  const query = `?account=${sub}&from=${from}&limit=1`;
  const { nextCursor } = await audit(OWNER.username, query);
  assert.ok(nextCursor);
  const cursor = `&cursor=${encodeURIComponent(nextCursor)}`;
  const call = (username: string, other: string) =>
    service.call({ path: `/local/1/audit${other}${cursor}`, authorization: service.auth(username) });
  // The same caller and query go on to the next page.
  assert.equal((await audit(OWNER.username, `${query}${cursor}`)).entries.length, 1);
  for (const other of [
    "?limit=1",
    `?account=${sub}&limit=1`,
    `?from=${from}&limit=1`,
    `${query}&actor=${SUB.username}`,
    `${query}&key=${created.key}`,
    `${query}&to=${new Date(Date.now() + 60_000).toISOString()}`,
  ]) {
    assertValidationError(await call(OWNER.username, other), "cursor");
  }
  // Another caller with the very same query: the sub-account itself, or an account of its own.
  assertValidationError(await call(SUB.username, query), "cursor");
  assertValidationError(await call(STRANGER.username, "?limit=1"), "cursor");
});

test("the database file holds no publicApiKey or password in the audit (nor anywhere)", async () => {
  const key = await service.createKey(OWNER.username, { name: "secret scan" });
  await service.call({
    method: "PUT",
    path: keyPath(key.key),
    authorization: service.auth(OWNER.username),
    body: { enabled: false },
  });
  const files = ["keydesk.db", "keydesk.db-wal"].map((name) => join(service.dataDir, name));
  const bytes = Buffer.concat(await Promise.all(files.filter(existsSync).map((file) => readFile(file))));
  for (const secret of [key.publicApiKey, OWNER.password, SUB.password, "sub-Changed-pw-9"]) {
    assert.equal(bytes.indexOf(Buffer.from(secret)), -1, `${secret} found in the database files`);
  }
  const page = await audit(OWNER.username, "?limit=1000");
  assert.ok(page.entries.length > 10);
  assert.equal(JSON.stringify(page).includes(key.publicApiKey), false);
});
