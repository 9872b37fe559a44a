import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { request, startServe } from "../../harness/keyServiceProcess.ts";
import {
  type ApiKey,
  assertApiError,
  assertOk,
  keyPath,
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
  service = await startService([{ username: "owner", password: "owner-password-1" }]);
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
