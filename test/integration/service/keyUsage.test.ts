import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import Database from "better-sqlite3";
import { DATABASE_FILE } from "../../../electron/service/dataDir.ts";
import { backdateKeys } from "../../harness/backdateKeys.ts";
import { request, SQLITE_ONLY, startServe } from "../../harness/keyServiceProcess.ts";
import {
  type ApiKey,
  assertApiError,
  assertOk,
  keyPath,
  keysPath,
  type Service,
  startService,
} from "./serviceFixture.ts";

/**
 * The usage of keys (`?include=usage`, a Keydesk extension) against a real serve process: exact
 * counts of allowed and refused App-authorized calls, by rule and by address, kept across a clean
 * stop and across a kill -9 once the second's batch was written, never in the spec's default answer.
 */

let service: Service;
const APPLICATIONS = "/2fa/2/applications";

before(async () => {
  service = await startService([
    { username: "owner", password: "owner-password-1" },
    { username: "lister", password: "lister-password-1" },
    { username: "idle", password: "idle-password-1" },
  ]);
});
after(() => service.close());

interface Counts {
  allowed: number;
  refused: Record<string, number>;
}
interface Usage {
  lastUsedAt: string | null;
  lastUsedFrom: string | null;
  lastRefusedAt: string | null;
  lastRefusedFrom: string | null;
  total: Counts;
  last24Hours: Counts;
}

async function usageOf(key: ApiKey): Promise<Usage> {
  const res = await service.call({
    path: `${keyPath(key.key)}?include=usage`,
    authorization: service.auth("owner"),
  });
  return assertOk<ApiKey & { usage: Usage }>(res).usage;
}

const call = (key: ApiKey, localAddress = "127.0.0.1", path = APPLICATIONS) =>
  service.call({ path, authorization: `App ${key.publicApiKey}`, localAddress });

const refusedNone = { disabled: 0, "not-yet-valid": 0, expired: 0, "address-not-allowed": 0, "tfa-only": 0 };

test("a key's answer has no usage unless asked; a new key's usage is empty", async () => {
  const key = await service.createKey("owner", { name: "fresh" });
  const plain = await service.getKey("owner", key.key);
  assert.equal("usage" in plain, false);
  assert.deepEqual(await usageOf(key), {
    lastUsedAt: null,
    lastUsedFrom: null,
    lastRefusedAt: null,
    lastRefusedFrom: null,
    total: { allowed: 0, refused: refusedNone },
    last24Hours: { allowed: 0, refused: refusedNone },
  });
  const wrong = await service.call({
    path: `${keyPath(key.key)}?include=secrets`,
    authorization: service.auth("owner"),
  });
  assert.deepEqual(Object.keys(assertApiError(wrong, 400, "BAD_REQUEST").validationErrors ?? {}), [
    "include",
  ]);
});

test("a burst of concurrent calls from several addresses is counted exactly, the last address with the last call", async () => {
  const key = await service.createKey("owner", { name: "burst" });
  const addresses = ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"];
  const perAddress = 60;
  await Promise.all(
    addresses.map(async (address) => {
      for (let index = 0; index < perAddress; index++) assertOk(await call(key, address));
    }),
  );
  const before = Date.now();
  assertOk(await call(key, "127.0.0.9"));
  const usage = await usageOf(key);
  assert.equal(usage.total.allowed, addresses.length * perAddress + 1);
  assert.equal(usage.last24Hours.allowed, usage.total.allowed);
  assert.deepEqual(usage.total.refused, refusedNone);
  assert.equal(usage.lastUsedFrom, "127.0.0.9");
  assert.ok(Date.parse((usage.lastUsedAt as string).replace("+0000", "Z")) >= before - 1000);
  assert.equal(usage.lastRefusedAt, null);
});

test("refused calls are counted by the rule that refused them, apart from allowed ones", async () => {
  const owner = service.auth("owner");
  const put = async (key: ApiKey, body: unknown) =>
    assertOk(await service.call({ method: "PUT", path: keyPath(key.key), authorization: owner, body }));
  const key = await service.createKey("owner", { name: "refusals", allowedIPs: ["127.0.0.1", "127.0.0.2"] });
  assertOk(await call(key, "127.0.0.1"));
  assertApiError(await call(key, "127.0.0.3"), 403, "FORBIDDEN");
  assertApiError(await call(key, "127.0.0.3"), 403, "FORBIDDEN");
  await put(key, { enabled: false });
  assertApiError(await call(key, "127.0.0.2"), 403, "FORBIDDEN");
  await put(key, { enabled: true, validTo: "2020-01-01T00:00:00.000+0000" });
  assertApiError(await call(key), 403, "FORBIDDEN");
  await put(key, { validTo: null, validFrom: "2999-01-01T00:00:00.000+0000" });
  assertApiError(await call(key), 403, "FORBIDDEN");
  const tfaOnly = await service.createKey("owner", { name: "tfa only", permissions: ["TFA"] });
  assertApiError(await call(tfaOnly), 403, "FORBIDDEN");

  const usage = await usageOf(key);
  assert.equal(usage.total.allowed, 1);
  assert.deepEqual(usage.total.refused, {
    disabled: 1,
    "not-yet-valid": 1,
    expired: 1,
    "address-not-allowed": 2,
    "tfa-only": 0,
  });
  assert.equal(usage.lastUsedFrom, "127.0.0.1");
  assert.equal(usage.lastRefusedFrom, "127.0.0.1");
  assert.equal((await usageOf(tfaOnly)).total.refused["tfa-only"], 1);
});

test("counts survive a clean stop, and a kill -9 once their second has passed", async () => {
  const key = await service.createKey("owner", { name: "durable" });
  for (let index = 0; index < 25; index++) assertOk(await call(key));
  await service.restart();
  assert.equal((await usageOf(key)).total.allowed, 25);

  for (let index = 0; index < 10; index++) assertOk(await call(key));
  // The recorder writes once a second: after two, the batch is in the database.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  await service.crashAndRestart();
  assert.equal((await usageOf(key)).total.allowed, 35);
});

test("serve --usage off counts nothing and says so when usage is asked for; a switch other than on or off is refused", async () => {
  const key = await service.createKey("owner", { name: "unrecorded" });
  const off = await startServe({ dataDir: service.dataDir, args: ["--usage", "off"] });
  try {
    assertOk(await request(off.url, { path: APPLICATIONS, authorization: `App ${key.publicApiKey}` }));
    const asked = await request(off.url, {
      path: `${keyPath(key.key)}?include=usage`,
      authorization: service.auth("owner"),
    });
    assert.match(assertApiError(asked, 400, "BAD_REQUEST").text, /does not record the usage/);
  } finally {
    assert.equal((await off.stop("SIGTERM")).code, 0);
  }
  assert.equal((await usageOf(key)).total.allowed, 0);
  const wrong = await startServe({ dataDir: service.dataDir, args: ["--usage", "maybe"] }).then(
    () => assert.fail("serve started with --usage maybe"),
    (error: Error) => error.message,
  );
  assert.match(wrong, /--usage must be on or off, not "maybe"/);
});

type KeyWithExtras = ApiKey & { usage?: Usage; createdAt?: string | null };

const asTime = (text: string) => Date.parse(text.replace("+0000", "Z"));

async function listed(username: string, query: string): Promise<KeyWithExtras[]> {
  const res = await service.call({ path: `${keysPath()}?${query}`, authorization: service.auth(username) });
  return assertOk<{ apiKeys: KeyWithExtras[] }>(res).apiKeys;
}

async function countOf(username: string, query: string): Promise<number> {
  const res = await service.call({
    path: `/local/1/accounts/_/api-keys/count?${query}`,
    authorization: service.auth(username),
  });
  return assertOk<{ count: number }>(res).count;
}

test("include=usage,created on the full list, a page and one key: the usage get answers, exact, and the creation time", async () => {
  // More keys than one piece of a list (1,024): the rest is read in windows by the background workers.
  const before = Date.now();
  for (let batch = 0; batch < 11; batch++) {
    await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        service.createKey("lister", { name: `listed ${batch * 100 + index}` }),
      ),
    );
  }
  const afterCreate = Date.now();
  // Creation order: what the list answers without include, and with it.
  const keys = await listed("lister", "");
  assert.equal(keys.length, 1100);
  assert.ok(keys.every((key) => !("usage" in key) && !("createdAt" in key)));
  const called = [keys[0], keys[700], keys[1050], keys[1099]] as ApiKey[];
  for (const [index, key] of called.entries()) {
    for (let count = 0; count <= index; count++) assertOk(await call(key, `127.0.0.${index + 2}`));
  }

  const full = await listed("lister", "include=usage,created");
  assert.deepEqual(
    full.map((key) => key.key),
    keys.map((key) => key.key),
  );
  for (const key of full) {
    const createdAt = asTime(key.createdAt as string);
    assert.ok(createdAt >= before - 1000 && createdAt <= afterCreate + 1000, `${key.createdAt}`);
  }
  for (const [index, key] of called.entries()) {
    const inList = full.find((candidate) => candidate.key === key.key) as KeyWithExtras;
    assert.equal(inList.usage?.total.allowed, index + 1);
    assert.equal(inList.usage?.last24Hours.allowed, index + 1);
    assert.equal(inList.usage?.lastUsedFrom, `127.0.0.${index + 2}`);
    const one = await service.call({
      path: `${keyPath(key.key)}?include=created,usage`,
      authorization: service.auth("lister"),
    });
    assert.deepEqual(assertOk(one), inList);
  }
  assert.deepEqual((full[1] as KeyWithExtras).usage, {
    lastUsedAt: null,
    lastUsedFrom: null,
    lastRefusedAt: null,
    lastRefusedFrom: null,
    total: { allowed: 0, refused: refusedNone },
    last24Hours: { allowed: 0, refused: refusedNone },
  });

  const page = await service.call({
    path: `${keysPath()}?include=usage&limit=2&cursor=${encodeURIComponent(await cursorAfter(699))}`,
    authorization: service.auth("lister"),
  });
  const { apiKeys } = assertOk<{ apiKeys: KeyWithExtras[] }>(page);
  assert.deepEqual(
    apiKeys.map((key) => [key.key, key.usage?.total.allowed, "createdAt" in key]),
    [
      [keys[700]?.key, 2, false],
      [keys[701]?.key, 0, false],
    ],
  );
  const allowedOf = new Map(full.map((key) => [key.key, key.usage?.total.allowed]));
  const sorted = await listed("lister", "include=usage&sort=name&order=desc&limit=50");
  assert.equal(sorted.length, 50);
  for (const key of sorted) assert.equal(key.usage?.total.allowed, allowedOf.get(key.key), key.name);
});

/** The cursor of the page that ends with the lister's key at this index (pages of one key). */
async function cursorAfter(index: number): Promise<string> {
  const res = await service.call({
    path: `${keysPath()}?limit=${index + 1}`,
    authorization: service.auth("lister"),
  });
  return assertOk<{ nextCursor: string }>(res).nextCursor;
}

test("include takes usage and created only, comma-separated; anything else is a 400 naming include", async () => {
  for (const include of ["", "usage,", "secrets", "usage;created", "USAGE"]) {
    const res = await service.call({
      path: `${keysPath()}?include=${encodeURIComponent(include)}&limit=1`,
      authorization: service.auth("lister"),
    });
    assert.deepEqual(Object.keys(assertApiError(res, 400, "BAD_REQUEST").validationErrors ?? {}), [
      "include",
    ]);
  }
});

test("unusedForDays lists and counts keys at least N days old without an allowed call in N days, never-used ones too, combined with the other filters", {
  skip: SQLITE_ONLY,
}, async () => {
  const made = await Promise.all(
    ["idle recent", "idle old", "idle never", "idle refused", "other"].map((name) =>
      service.createKey("idle", { name, ...(name === "idle refused" && { allowedIPs: ["10.9.9.9"] }) }),
    ),
  );
  const [recent, old, , refusedOnly] = made;
  assertOk(await call(recent as ApiKey));
  assertApiError(await call(refusedOnly as ApiKey), 403, "FORBIDDEN");
  // The account's keys as they would be had they been created 40 days ago, and one key last used
  // ten days ago: its row as the recorder would have written it then.
  const databaseFile = join(service.dataDir, DATABASE_FILE);
  backdateKeys(
    databaseFile,
    Date.now() - 40 * 24 * 3_600_000,
    made.map((key) => key.key),
  );
  const db = new Database(databaseFile);
  try {
    db.pragma("busy_timeout = 5000");
    db.prepare(
      `INSERT INTO key_usage (api_key_id, allowed, last_used_at, last_used_from)
       SELECT id, 3, ?, '10.0.0.1' FROM api_keys WHERE key = ?`,
    ).run(Date.now() - 10 * 24 * 3_600_000, (old as ApiKey).key);
  } finally {
    db.close();
  }
  // Never used, but made just now: it has not been unused for a day, let alone seven.
  await service.createKey("idle", { name: "idle new" });
  const names = async (query: string) => (await listed("idle", query)).map((key) => key.name).sort();
  assert.deepEqual(await names("unusedForDays=7&nameContains=idle"), [
    "idle never",
    "idle old",
    "idle refused",
  ]);
  assert.deepEqual(await names("unusedForDays=30&nameContains=idle"), ["idle never", "idle refused"]);
  assert.deepEqual(await names("unusedForDays=7&limit=10"), [
    "idle never",
    "idle old",
    "idle refused",
    "other",
  ]);
  assert.deepEqual(await names("unusedForDays=7&sort=name&limit=2"), ["idle never", "idle old"]);
  assert.deepEqual(await names("unusedForDays=7&enabled=true&permission=ALL&nameContains=never"), [
    "idle never",
  ]);
  assert.equal(await countOf("idle", "unusedForDays=7"), 4);
  assert.equal(await countOf("idle", "unusedForDays=30&nameContains=idle"), 2);
  assert.equal(await countOf("idle", "unusedForDays=39"), 3);
  assert.equal(await countOf("idle", "unusedForDays=41"), 0, "no key of the account is 41 days old");
  for (const days of ["0", "3651", "-1", "1.5", "seven", ""]) {
    for (const path of [keysPath(), "/local/1/accounts/_/api-keys/count"]) {
      const res = await service.call({
        path: `${path}?unusedForDays=${days}`,
        authorization: service.auth("idle"),
      });
      assert.deepEqual(Object.keys(assertApiError(res, 400, "BAD_REQUEST").validationErrors ?? {}), [
        "unusedForDays",
      ]);
    }
  }
});

test("with --usage off, include=usage and unusedForDays are a 400 saying why; include=created still answers", async () => {
  const key = await service.createKey("owner", { name: "created, usage off" });
  const off = await startServe({ dataDir: service.dataDir, args: ["--usage", "off"] });
  try {
    const ask = (path: string) => request(off.url, { path, authorization: service.auth("owner") });
    for (const path of [
      `${keysPath()}?include=usage`,
      `${keysPath()}?include=created,usage&limit=5`,
      `${keysPath()}?unusedForDays=3`,
      "/local/1/accounts/_/api-keys/count?unusedForDays=3",
      `/local/1/accounts/_/api-keys/${key.key}/usage-series`,
    ]) {
      assert.match(
        assertApiError(await ask(path), 400, "BAD_REQUEST").text,
        /does not record the usage/,
        path,
      );
    }
    const created = assertOk<KeyWithExtras>(await ask(`${keyPath(key.key)}?include=created`));
    assert.match(String(created.createdAt), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$/);
    assert.equal("usage" in created, false);
  } finally {
    assert.equal((await off.stop("SIGTERM")).code, 0);
  }
});

interface Bucket extends Counts {
  start: string;
}

const seriesPath = (key: string, accountKey = "_") =>
  `/local/1/accounts/${accountKey}/api-keys/${key}/usage-series`;

test("the usage series: allowed and refused 2FA calls just made are in the current hour and today, every other bucket 0", async () => {
  const key = await service.createKey("owner", { name: "charted", allowedIPs: ["127.0.0.1"] });
  const first = Date.now();
  for (let index = 0; index < 3; index++) assertOk(await call(key, "127.0.0.1"));
  assertApiError(await call(key, "127.0.0.3"), 403, "FORBIDDEN");
  assertApiError(await call(key, "127.0.0.4"), 403, "FORBIDDEN");
  const res = await service.call({ path: seriesPath(key.key), authorization: service.auth("owner") });
  const last = Date.now();
  const { hours, days } = assertOk<{ hours: Bucket[]; days: Bucket[] }>(res);
  assert.equal(hours.length, 48);
  assert.equal(days.length, 30);
  const HOUR = 3_600_000;
  const DAY = 24 * HOUR;
  // Oldest first, one hour (one UTC day) apart, the last one the one the answer was made in.
  for (const [buckets, size] of [
    [hours, HOUR],
    [days, DAY],
  ] as const) {
    const starts = buckets.map((bucket) => asTime(bucket.start));
    assert.deepEqual(
      starts,
      starts.map((_, index) => (starts[0] as number) + index * size),
    );
    assert.equal((starts[0] as number) % size, 0);
  }
  const lastHour = asTime((hours.at(-1) as Bucket).start);
  assert.ok(lastHour <= last && last < lastHour + HOUR);
  assert.equal(lastHour - asTime((hours[0] as Bucket).start), 47 * HOUR);
  // The calls were made in the current hour (or, should the hour have turned meanwhile, the one before).
  const counted = (buckets: Bucket[]) =>
    buckets
      .map((bucket, index) => ({ index, allowed: bucket.allowed, refused: bucket.refused }))
      .filter((bucket) => bucket.allowed > 0 || Object.values(bucket.refused).some((count) => count > 0));
  const callHours = counted(hours);
  const sameHour = Math.floor(first / HOUR) === Math.floor(last / HOUR);
  if (sameHour)
    assert.deepEqual(
      callHours.map((bucket) => bucket.index),
      [47],
    );
  else assert.ok(callHours.every((bucket) => bucket.index >= 46));
  const sum = (buckets: { allowed: number; refused: Record<string, number> }[]) => ({
    allowed: buckets.reduce((total, bucket) => total + bucket.allowed, 0),
    refused: buckets.reduce((total, bucket) => total + (bucket.refused["address-not-allowed"] ?? 0), 0),
  });
  assert.deepEqual(sum(callHours), { allowed: 3, refused: 2 });
  if (sameHour) assert.deepEqual((hours[47] as Bucket).refused, { ...refusedNone, "address-not-allowed": 2 });
  const callDays = counted(days);
  assert.deepEqual(sum(callDays), { allowed: 3, refused: 2 });
  if (Math.floor(first / DAY) === Math.floor(last / DAY)) {
    assert.deepEqual(
      callDays.map((bucket) => bucket.index),
      [29],
    );
  }
});

test("the usage series of a key of an account the caller does not manage is a 404, and a query is a 400", async () => {
  const key = await service.createKey("owner", { name: "not the lister's" });
  const ask = (username: string, path: string) =>
    service.call({ path, authorization: service.auth(username) });
  assertApiError(await ask("lister", seriesPath(key.key)), 404, "NOT_FOUND");
  assertApiError(await ask("lister", seriesPath(key.key, service.accountKeys.owner)), 404, "NOT_FOUND");
  assertApiError(await ask("owner", seriesPath("0".repeat(32))), 404, "NOT_FOUND");
  assertOk(await ask("owner", seriesPath(key.key, service.accountKeys.owner)));
  const query = assertApiError(await ask("owner", `${seriesPath(key.key)}?hours=24`), 400, "BAD_REQUEST");
  assert.deepEqual(Object.keys(query.validationErrors ?? {}), ["hours"]);
  const app = await service.call({ path: seriesPath(key.key), authorization: `App ${key.publicApiKey}` });
  assertApiError(app, 403, "FORBIDDEN");
});
