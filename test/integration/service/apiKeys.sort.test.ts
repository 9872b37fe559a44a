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
 * GET .../api-keys?sort=&order=: lists in another order, paged by keyset so that page after page
 * neither repeats nor skips a key, also under a filter and across the service's step windows.
 */

let service: Service;
const OWNER = "owner";
/** An account with a key in every state, for the state sort. */
const STATES = "states";
const DAY = 24 * 3600_000;
const NAMES = ["delta", "Alpha", "charlie", "bravo", "echo", "alpha 2", "Foxtrot"];

before(async () => {
  service = await startService([
    { username: OWNER, password: "owner-secret-1" },
    { username: STATES, password: "states-secret-1" },
  ]);
  const now = Date.now();
  for (const [index, name] of NAMES.entries()) {
    // Every other key has a validTo, later for later names in the list; "bravo" is disabled.
    const validTo = index % 2 === 0 ? { validTo: formatApiDateTime(now + (10 - index) * DAY) } : {};
    const key = await service.createKey(OWNER, { name, ...validTo });
    if (name === "bravo") {
      const res = await service.call({
        method: "PUT",
        path: `${keysPath()}/${key.key}`,
        authorization: service.auth(OWNER),
        body: { enabled: false },
      });
      assert.equal(res.status, 200, res.text);
    }
  }
});
after(async () => {
  await service?.close();
});

const names = async (query: string) => (await service.listKeys(OWNER, query)).map((key) => key.name);

/** Every page of a list with `limit` keys per page, following nextCursor. */
async function paged(query: string, limit: number): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await service.call({
      method: "GET",
      path: `${keysPath()}?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`,
      authorization: service.auth(OWNER),
    });
    assert.equal(res.status, 200, res.text);
    const page = res.json as { apiKeys: ApiKey[]; nextCursor: string | null };
    out.push(...page.apiKeys.map((key) => key.name));
    cursor = page.nextCursor;
  } while (cursor !== null);
  return out;
}

test("by name in any case, both ways; creation order stays the default", async () => {
  const byName = ["Alpha", "alpha 2", "bravo", "charlie", "delta", "echo", "Foxtrot"];
  assert.deepEqual(await names("?sort=name"), byName);
  assert.deepEqual(await names("?sort=name&order=desc"), [...byName].reverse());
  assert.deepEqual(await names(""), NAMES);
  assert.deepEqual(await names("?order=desc"), [...NAMES].reverse());
});

test("by validTo (no end last) and by state (enabled first, each by validTo)", async () => {
  // validTo: index 6 (Foxtrot) soonest, then echo (4), charlie (2), delta (0); then no end.
  assert.deepEqual(await names("?sort=validTo"), [
    "Foxtrot",
    "echo",
    "charlie",
    "delta",
    "Alpha",
    "bravo",
    "alpha 2",
  ]);
  assert.deepEqual(await names("?sort=state"), [
    "Foxtrot",
    "echo",
    "charlie",
    "delta",
    "Alpha",
    "alpha 2",
    "bravo",
  ]);
});

test("by state: working keys first (enabled and valid now), then not yet valid (soonest start first), expired, disabled (each by validTo)", async () => {
  const now = Date.now();
  const at = (offset: number) => formatApiDateTime(now + offset);
  const specs: [string, Record<string, unknown>, boolean][] = [
    ["expired long ago", { validTo: at(-24 * DAY) }, true],
    ["working, no end", {}, true],
    ["disabled", {}, false],
    ["expired yesterday", { validTo: at(-DAY) }, true],
    ["not yet valid", { validFrom: at(3 * DAY) }, true],
    // Keys not valid yet rank by when they start, not by when they end.
    ["starts in 6 days, ends in 10", { validFrom: at(6 * DAY), validTo: at(10 * DAY) }, true],
    ["starts in 2 days, ends in 30", { validFrom: at(2 * DAY), validTo: at(30 * DAY) }, true],
    ["working, ends in 5 days", { validTo: at(5 * DAY) }, true],
    ["disabled and expired", { validTo: at(-2 * DAY) }, false],
    ["working, ends tomorrow", { validTo: at(DAY) }, true],
  ];
  for (const [name, validity, enabled] of specs) {
    const key = await service.createKey(STATES, { name, ...validity });
    if (!enabled) {
      const res = await service.call({
        method: "PUT",
        path: `${keysPath()}/${key.key}`,
        authorization: service.auth(STATES),
        body: { enabled: false },
      });
      assert.equal(res.status, 200, res.text);
    }
  }
  const ranked = [
    "working, ends tomorrow",
    "working, ends in 5 days",
    "working, no end",
    "starts in 2 days, ends in 30",
    "not yet valid",
    "starts in 6 days, ends in 10",
    "expired long ago",
    "expired yesterday",
    "disabled and expired",
    "disabled",
  ];
  const list = async (query: string) => (await service.listKeys(STATES, query)).map((key) => key.name);
  assert.deepEqual(await list("?sort=state"), ranked);
  assert.deepEqual(await list("?sort=state&order=desc"), [...ranked].reverse());
  for (const query of ["sort=state", "sort=state&order=desc"]) {
    const out: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await service.call({
        method: "GET",
        path: `${keysPath()}?${query}&limit=3${cursor ? `&cursor=${cursor}` : ""}`,
        authorization: service.auth(STATES),
      });
      assert.equal(res.status, 200, res.text);
      const page = res.json as { apiKeys: ApiKey[]; nextCursor: string | null };
      out.push(...page.apiKeys.map((key) => key.name));
      cursor = page.nextCursor;
    } while (cursor !== null);
    assert.deepEqual(out, await list(`?${query}`), `${query}: paged by keyset`);
  }
});

test("paged by keyset: the pages together are the whole sorted list, also under a filter", async () => {
  for (const query of [
    "sort=name",
    "sort=name&order=desc",
    "sort=validTo",
    "sort=state&order=desc",
    "order=desc",
  ]) {
    assert.deepEqual(await paged(query, 2), await names(`?${query}`), query);
  }
  assert.deepEqual(await paged("sort=name&nameContains=a", 1), [
    "Alpha",
    "alpha 2",
    "bravo",
    "charlie",
    "delta",
  ]);
});

test("an unknown sort or order is a 400 naming the parameter", async () => {
  const res = await service.call({
    method: "GET",
    path: `${keysPath()}?sort=size`,
    authorization: service.auth(OWNER),
  });
  assertApiError(res, 400, "BAD_REQUEST");
  assert.match(assertValidationError(res, "sort").join(" "), /must be one of created, name, validTo, state/);
  const order = await service.call({
    method: "GET",
    path: `${keysPath()}?order=up`,
    authorization: service.auth(OWNER),
  });
  assert.match(assertValidationError(order, "order").join(" "), /asc or desc/);
});
