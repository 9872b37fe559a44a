import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type KeyPage,
  type KeyQuery,
  type KeyServiceClient,
  matchesKeyQuery,
} from "../../../../../electron/client/keyServiceClient.ts";
import { ServiceCallFailure } from "../../../../../electron/client/serviceCallFailure.ts";
import { CoreFailure } from "../../../../../electron/main/core/coreFailure.ts";
import {
  clientQueryOf,
  KEPT_LIST_FRESH_MS,
  KeyPager,
  MAX_KEPT_LISTS,
  mainCursor,
  parseMainCursor,
} from "../../../../../electron/main/core/keyPager.ts";
import { type ApiKeyDto, KEY_INCLUDES } from "../../../../../shared/apiKeys.ts";

const keys: ApiKeyDto[] = Array.from({ length: 25 }, (_, index) => ({
  name: `key ${index}`,
  key: `k${index}`,
  publicApiKey: `pk${index}`,
  accountKey: "a",
  permissions: index % 5 === 0 ? ["TFA"] : ["ALL"],
  enabled: index % 2 === 0,
}));

/** A client over `keys`: a paging one (cursor = offset as text) or one that answers whole lists. */
function fakeClient(options: { pages: boolean; counts: boolean; baseUrl?: string }) {
  const calls: string[] = [];
  const client = {
    baseUrl: options.baseUrl ?? "http://remote",
    username: "u",
    async listPage(
      _account: string,
      query: KeyQuery,
      page: { limit: number; cursor?: string },
    ): Promise<KeyPage> {
      calls.push(`list ${JSON.stringify(query)} ${page.limit} ${page.cursor ?? "-"}`);
      const matching = keys.filter(matchesKeyQuery(query));
      if (!options.pages) return { keys: matching, nextCursor: null, paged: false };
      if (page.cursor !== undefined && !/^\d+$/.test(page.cursor)) {
        throw new ServiceCallFailure("BAD_REQUEST", "bad cursor", { cursor: ["bad"] }, 400);
      }
      const from = Number(page.cursor ?? 0);
      const end = from + page.limit;
      return {
        keys: matching.slice(from, end),
        nextCursor: end < matching.length ? String(end) : null,
        paged: true,
      };
    },
    async countKeys(_account: string, query: KeyQuery): Promise<number | null> {
      calls.push(`count ${JSON.stringify(query)}`);
      return options.counts ? keys.filter(matchesKeyQuery(query)).length : null;
    },
  };
  return { client: client as unknown as KeyServiceClient, calls };
}

async function walk(pager: KeyPager, target: { profileId: string; client: KeyServiceClient }, limit: number) {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const page = await pager.page(target, "a", {}, { limit, ...(cursor !== undefined && { cursor }) });
    assert.ok(page.keys.length <= limit);
    seen.push(...page.keys.map((key) => key.key));
    if (page.nextCursor === null) return seen;
    cursor = page.nextCursor;
  }
  throw new Error("no end");
}

test("main's cursors: main:<offset>, anything else refused as INVALID_ARGUMENT", () => {
  assert.equal(mainCursor(200), "main:200");
  assert.equal(parseMainCursor("main:0"), 0);
  assert.equal(parseMainCursor("main:1500"), 1500);
  for (const bad of ["main:", "main:-1", "main:01", "main:1e3", "main:12345678901", "other:1", "main:1 "]) {
    assert.throws(
      () => parseMainCursor(bad),
      (error: unknown) => error instanceof CoreFailure && error.messageId === "INVALID_ARGUMENT",
      bad,
    );
  }
});

test("the bridge query becomes the client's: a blank name filter is none", () => {
  assert.deepEqual(clientQueryOf(undefined), { include: KEY_INCLUDES });
  assert.deepEqual(clientQueryOf({ nameContains: "  " }), { include: KEY_INCLUDES });
  assert.deepEqual(clientQueryOf({ nameContains: " ab ", enabled: false, permission: "TFA" }), {
    enabled: false,
    permission: "TFA",
    nameContains: "ab",
    include: KEY_INCLUDES,
  });
});

/** Every list is asked for with the extras the table shows (services that do not know them ignore them). */
const ALL_INCLUDED = JSON.stringify({ include: KEY_INCLUDES });

test("a paging service's pages and cursors pass through; its refusal of a cursor is INVALID_ARGUMENT", async () => {
  const { client, calls } = fakeClient({ pages: true, counts: true });
  const pager = new KeyPager();
  const target = { profileId: "p", client };
  assert.deepEqual(
    await walk(pager, target, 10),
    keys.map((key) => key.key),
  );
  assert.deepEqual(calls, [
    `list ${ALL_INCLUDED} 10 -`,
    `list ${ALL_INCLUDED} 10 10`,
    `list ${ALL_INCLUDED} 10 20`,
  ]);
  assert.equal(pager.keptLists, 0, "a paging service's pages are not kept");
  await assert.rejects(
    pager.page(target, "a", {}, { limit: 10, cursor: "zz" }),
    (error: unknown) =>
      error instanceof CoreFailure &&
      error.messageId === "INVALID_ARGUMENT" &&
      error.validationErrors?.cursor !== undefined,
  );
  assert.equal(await pager.count(target, "a", { permission: "TFA" }), 5);
});

test("a whole list is kept and paged from memory; the count falls back to its length", async () => {
  let now = 1_000;
  const { client, calls } = fakeClient({ pages: false, counts: false });
  const pager = new KeyPager(() => now);
  const target = { profileId: "p", client };
  assert.deepEqual(
    await walk(pager, target, 10),
    keys.map((key) => key.key),
  );
  assert.deepEqual(calls, [`list ${ALL_INCLUDED} 10 -`], "asked once");
  assert.equal(pager.keptLists, 1);
  assert.equal(await pager.count(target, "a", {}), 25);
  assert.deepEqual(
    calls,
    [`list ${ALL_INCLUDED} 10 -`, `count ${ALL_INCLUDED}`],
    "a fresh kept list answers the count",
  );
  now += KEPT_LIST_FRESH_MS + 1;
  assert.equal(await pager.count(target, "a", { enabled: true }), 13);
  assert.equal(calls.length, 4, "an unknown query's list is asked for");
  // A cursor the service did not give (it answers the whole list again) is refused.
  await assert.rejects(
    pager.page(target, "a", {}, { limit: 10, cursor: "abc" }),
    (error: unknown) => error instanceof CoreFailure && error.messageId === "INVALID_ARGUMENT",
  );
  await assert.rejects(
    pager.page(target, "a", {}, { limit: 10, cursor: "main:26" }),
    (error: unknown) => error instanceof CoreFailure && error.messageId === "INVALID_ARGUMENT",
  );
});

test("kept lists: a few at most, replaced by a new first page, dropped for another profile", async () => {
  const { client, calls } = fakeClient({ pages: false, counts: false });
  const pager = new KeyPager();
  const target = { profileId: "p", client };
  for (let i = 1; i <= MAX_KEPT_LISTS + 3; i++) {
    await pager.page(target, "a", { nameContains: `key ${i}` }, { limit: 1 });
  }
  assert.equal(pager.keptLists, MAX_KEPT_LISTS);
  // The first one was dropped: its cursor makes main ask again.
  calls.length = 0;
  const again = await pager.page(target, "a", { nameContains: "key 1" }, { limit: 1, cursor: "main:1" });
  assert.deepEqual(
    again.keys.map((key) => key.key),
    ["k10"],
  );
  assert.equal(calls.length, 1);
  // Another profile (or the same one at another address) drops every kept list.
  await pager.page({ profileId: "q", client }, "a", {}, { limit: 1 });
  assert.equal(pager.keptLists, 1);
  const moved = fakeClient({ pages: false, counts: false, baseUrl: "http://elsewhere" });
  await pager.page({ profileId: "q", client: moved.client }, "a", {}, { limit: 1 });
  assert.equal(pager.keptLists, 1);
});

test("a paging service without a count route is counted by walking its pages", async () => {
  const { client } = fakeClient({ pages: true, counts: false });
  const pager = new KeyPager();
  assert.equal(await pager.count({ profileId: "p", client }, "a", { enabled: false }), 12);
});

test("a failed first page is not kept", async () => {
  const { client } = fakeClient({ pages: false, counts: false });
  const failing = Object.assign(Object.create(client), {
    listPage: async () => {
      throw new ServiceCallFailure("UNREACHABLE", "gone");
    },
  }) as KeyServiceClient;
  const pager = new KeyPager();
  await assert.rejects(pager.page({ profileId: "p", client: failing }, "a", {}, { limit: 5 }));
  assert.equal(pager.keptLists, 0);
});
