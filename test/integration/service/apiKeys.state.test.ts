import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { formatApiDateTime } from "../../../shared/datetime.ts";
import {
  type ApiKey,
  assertApiError,
  assertValidationError,
  keysPath,
  type Service,
  startService,
} from "./serviceFixture.ts";

/**
 * GET .../api-keys?state=: keys by their state when the request arrives, as App authorization
 * decides it; an enabled key past its validTo is expired, not enabled. With paging and counts.
 */

let service: Service;
const OWNER = "owner";
const DAY = 24 * 3600_000;
const byName: Record<string, ApiKey> = {};

before(async () => {
  service = await startService([{ username: OWNER, password: "owner-secret-1" }]);
  const now = Date.now();
  const specs: Record<string, Record<string, unknown>> = {
    plain: {},
    soon: { validTo: formatApiDateTime(now + 2 * DAY) },
    later: { validTo: formatApiDateTime(now + 30 * DAY) },
    past: { validTo: formatApiDateTime(now - DAY) },
    future: { validFrom: formatApiDateTime(now + DAY) },
    off: { validTo: formatApiDateTime(now - DAY) },
  };
  for (const [name, fields] of Object.entries(specs)) {
    byName[name] = await service.createKey(OWNER, { name, ...fields });
  }
  const off = byName.off as ApiKey;
  const res = await service.call({
    method: "PUT",
    path: `${keysPath()}/${off.key}`,
    authorization: service.auth(OWNER),
    body: { enabled: false },
  });
  assert.equal(res.status, 200, res.text);
});
after(async () => {
  await service?.close();
});

const names = async (query: string) => (await service.listKeys(OWNER, query)).map((key) => key.name);

test("each state lists the keys App authorization treats that way; disabled wins", async () => {
  assert.deepEqual(await names("?state=enabled"), ["plain", "soon", "later"]);
  assert.deepEqual(await names("?state=expired"), ["past"]);
  assert.deepEqual(await names("?state=not-yet-valid"), ["future"]);
  assert.deepEqual(await names("?state=disabled"), ["off"]);
  assert.deepEqual(await names("?state=expiring-soon"), ["soon"]);
  assert.deepEqual(await names("?state=expired&nameContains=PA"), ["past"]);
  // Without it the answer is the spec's, every key.
  assert.equal((await names("")).length, 6);
});

test("paged and counted the same way", async () => {
  const res = await service.call({
    method: "GET",
    path: `${keysPath()}?state=enabled&limit=2`,
    authorization: service.auth(OWNER),
  });
  const first = res.json as { apiKeys: ApiKey[]; nextCursor: string | null };
  assert.deepEqual(
    first.apiKeys.map((key) => key.name),
    ["plain", "soon"],
  );
  assert.ok(first.nextCursor);
  const next = await service.call({
    method: "GET",
    path: `${keysPath()}?state=enabled&limit=2&cursor=${first.nextCursor}`,
    authorization: service.auth(OWNER),
  });
  assert.deepEqual(
    (next.json as { apiKeys: ApiKey[] }).apiKeys.map((key) => key.name),
    ["later"],
  );
  const count = await service.call({
    method: "GET",
    path: "/local/1/accounts/_/api-keys/count?state=expired",
    authorization: service.auth(OWNER),
  });
  assert.deepEqual(count.json, { count: 1 });
});

test("an unknown state is a 400 naming the parameter", async () => {
  const res = await service.call({
    method: "GET",
    path: `${keysPath()}?state=active`,
    authorization: service.auth(OWNER),
  });
  assertApiError(res, 400, "BAD_REQUEST");
  assert.match(assertValidationError(res, "state").join(" "), /must be one of enabled, disabled/);
});
