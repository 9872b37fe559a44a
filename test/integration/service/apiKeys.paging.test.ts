import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  type ApiKey,
  assertOk,
  assertValidationError,
  keyPath,
  keysPath,
  type Service,
  startService,
} from "./serviceFixture.ts";

/**
 * Paging the list (a Keydesk extension): `limit` and an opaque `cursor`, `nextCursor` in the
 * answer only when paging was asked for; filters combine with it; creation order throughout.
 */

let service: Service;
const OWNER = "owner";
const SUB = "sub";
/** The owner's keys in creation order. */
const created: ApiKey[] = [];

interface Page {
  apiKeys: ApiKey[];
  nextCursor: string | null;
}

before(async () => {
  service = await startService([
    { username: OWNER, password: "owner-secret-1" },
    { username: SUB, password: "sub-secret-12", parent: OWNER },
  ]);
  for (let index = 0; index < 25; index++) {
    const name = index % 5 === 0 ? `Ünïcode Rotation ${index}` : `service ${index}`;
    const permissions = index % 3 === 0 ? ["TFA"] : index % 3 === 1 ? ["ALL"] : ["ALL", "TFA"];
    created.push(await service.createKey(OWNER, { name, permissions }));
  }
  for (const index of [1, 7, 8, 20]) {
    const res = await service.call({
      method: "PUT",
      path: keyPath((created[index] as ApiKey).key),
      authorization: service.auth(OWNER),
      body: { enabled: false },
    });
    created[index] = assertOk<ApiKey>(res);
  }
});
after(async () => {
  await service?.close();
});

async function page(query: string, username = OWNER, accountKey = "_"): Promise<Page> {
  const res = await service.call({
    path: `${keysPath(accountKey)}${query}`,
    authorization: service.auth(username),
  });
  const body = assertOk<Page>(res);
  assert.deepEqual(Object.keys(body).sort(), ["apiKeys", "nextCursor"]);
  return body;
}

/** Every page of a query, following nextCursor until it is null. */
async function allPages(query: string, limit: number): Promise<Page[]> {
  const pages: Page[] = [];
  let cursor: string | null = null;
  do {
    const separator = query ? "&" : "?";
    const at: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
    const next = await page(`${query}${separator}limit=${limit}${at}`);
    pages.push(next);
    cursor = next.nextCursor;
  } while (cursor !== null && pages.length < 100);
  return pages;
}

const keysOf = (keys: ApiKey[]) => keys.map((key) => key.key);

describe("paging", () => {
  test("pages of `limit` keys follow each other in creation order; the last has nextCursor null", async () => {
    const pages = await allPages("", 10);
    assert.deepEqual(
      pages.map((each) => each.apiKeys.length),
      [10, 10, 5],
    );
    assert.deepEqual(pages.at(-1)?.nextCursor, null);
    assert.deepEqual(
      pages.flatMap((each) => each.apiKeys),
      created,
    );
  });

  test("a page that ends exactly at the last key has nextCursor null: no empty page follows", async () => {
    const pages = await allPages("", 25);
    assert.equal(pages.length, 1);
    assert.deepEqual(pages[0]?.apiKeys, created);
    assert.equal(pages[0]?.nextCursor, null);
  });

  test("a cursor alone pages by 1,000; the cursor is opaque (not a key id or a number)", async () => {
    const first = await page("?limit=3");
    assert.ok(first.nextCursor);
    assert.doesNotMatch(first.nextCursor, /^\d+$/);
    assert.ok(!created.some((key) => first.nextCursor?.includes(key.key)));
    const rest = await page(`?cursor=${first.nextCursor}`);
    assert.deepEqual(keysOf(rest.apiKeys), keysOf(created.slice(3)));
    assert.equal(rest.nextCursor, null);
  });

  test("without limit or cursor the answer is the spec's list: every key, no nextCursor", async () => {
    const res = await service.call({ path: keysPath(), authorization: service.auth(OWNER) });
    const body = assertOk<Record<string, unknown>>(res);
    assert.deepEqual(Object.keys(body), ["apiKeys"]);
    assert.deepEqual(body.apiKeys, created);
  });

  test("keys created while a client pages appear on a later page; none is answered twice or skipped", async () => {
    const first = await page("?limit=20");
    const added = [
      await service.createKey(OWNER, { name: "added while paging 1" }),
      await service.createKey(OWNER, { name: "added while paging 2" }),
    ];
    try {
      const second = await page(`?limit=20&cursor=${first.nextCursor}`);
      assert.deepEqual(keysOf([...first.apiKeys, ...second.apiKeys]), keysOf([...created, ...added]));
      assert.equal(second.nextCursor, null);
    } finally {
      // The later tests expect them among the owner's keys, as they now are.
      created.push(...added);
    }
  });

  test("a sub-account's pages hold its own keys only; the parent pages them through its accountKey", async () => {
    const subKeys = [
      await service.createKey(SUB, { name: "sub one" }),
      await service.createKey(SUB, { name: "sub two" }),
    ];
    const own = await page("?limit=1", SUB);
    assert.deepEqual(keysOf(own.apiKeys), [subKeys[0]?.key]);
    const parent = await page(`?limit=1&cursor=${own.nextCursor}`, OWNER, service.accountKeys[SUB]);
    assert.deepEqual(keysOf(parent.apiKeys), [subKeys[1]?.key]);
  });
});

describe("filters, with and without paging", () => {
  const expect = (predicate: (key: ApiKey) => boolean) => keysOf(created.filter(predicate));
  const cases: [string, (key: ApiKey) => boolean][] = [
    ["enabled=false", (key) => key.enabled === false],
    ["enabled=true", (key) => key.enabled === true],
    ["nameContains=rotation", (key) => key.name.toLowerCase().includes("rotation")],
    // Case folds beyond ASCII, as the desktop's search box did.
    ["nameContains=%C3%9CN%C3%8FCODE", (key) => key.name.startsWith("Ünïcode")],
    ["nameContains=%20%20", () => true],
    ["permission=TFA", (key) => (key.permissions as string[]).includes("TFA")],
    ["permission=ALL", (key) => (key.permissions as string[]).includes("ALL")],
    [
      "permission=TFA&enabled=true&nameContains=service",
      (key) =>
        (key.permissions as string[]).includes("TFA") && key.enabled === true && key.name.includes("service"),
    ],
    ["name=service%2012", (key) => key.name === "service 12"],
  ];
  for (const [query, predicate] of cases) {
    test(`?${query}: the same keys whole and in pages of 2`, async () => {
      const whole = await service.listKeys(OWNER, `?${query}`);
      assert.deepEqual(keysOf(whole), expect(predicate));
      const pages = await allPages(`?${query}`, 2);
      assert.deepEqual(keysOf(pages.flatMap((each) => each.apiKeys)), expect(predicate));
      assert.ok(pages.every((each) => each.apiKeys.length <= 2));
    });
  }

  test("publicApiKey combines with paging: one key, nextCursor null", async () => {
    const wanted = created[13] as ApiKey;
    const found = await page(`?limit=5&publicApiKey=${encodeURIComponent(String(wanted.publicApiKey))}`);
    assert.deepEqual(found, { apiKeys: [wanted], nextCursor: null });
  });
});

describe("count", () => {
  const countPath = (accountKey = "_") => `/local/1/accounts/${accountKey}/api-keys/count`;
  const count = async (query: string) => {
    const res = await service.call({ path: `${countPath()}${query}`, authorization: service.auth(OWNER) });
    return assertOk<{ count: number }>(res).count;
  };

  test("counts the keys each filter matches, as the list lists them", async () => {
    for (const query of ["", "?enabled=false", "?nameContains=rotation", "?permission=TFA&enabled=true"]) {
      assert.equal(await count(query), (await service.listKeys(OWNER, query)).length, query);
    }
  });

  test("bad filters are a 400 naming them; paging parameters are not filters", async () => {
    for (const [query, field] of [
      ["?enabled=yes", "enabled"],
      ["?permission=admin", "permission"],
      ["?limit=5", "limit"],
    ] as const) {
      const res = await service.call({ path: `${countPath()}${query}`, authorization: service.auth(OWNER) });
      assertValidationError(res, field);
    }
  });

  test("an account the caller does not manage is a 404; a sub-account is counted for its parent", async () => {
    const res = await service.call({
      path: countPath(service.accountKeys[OWNER]),
      authorization: service.auth(SUB),
    });
    assert.equal(res.status, 404);
    const sub = await service.call({
      path: countPath(service.accountKeys[SUB]),
      authorization: service.auth(OWNER),
    });
    assert.equal(assertOk<{ count: number }>(sub).count, (await service.listKeys(SUB)).length);
  });
});
