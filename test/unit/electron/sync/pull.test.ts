import assert from "node:assert/strict";
import { test } from "node:test";
import type { KeyPage } from "../../../../electron/client/keyServiceClient.ts";
import { ServiceCallFailure } from "../../../../electron/client/serviceCallFailure.ts";
import { type PagingClient, type RemoteKeyPage, remoteKeyPages } from "../../../../electron/sync/pull.ts";
import { LinkFailure } from "../../../../electron/sync/remoteFailure.ts";
import type { ApiKeyDto } from "../../../../shared/apiKeys.ts";

const key = (i: number) => ({ key: `K${i}` }) as unknown as ApiKeyDto;
const keys = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => key(from + i));

/** A client answering the pages given, in order, and recording what it was asked. */
function fakeClient(
  pages: (KeyPage | Error)[],
  count: () => Promise<number | null> = async () => null,
): PagingClient & { asked: { limit: number; cursor: string | undefined }[]; counts: number } {
  const fake = {
    asked: [] as { limit: number; cursor: string | undefined }[],
    counts: 0,
    async listPage(
      _accountKey: string,
      _query: unknown,
      page: { limit: number; cursor?: string | undefined },
    ) {
      fake.asked.push({ limit: page.limit, cursor: page.cursor });
      const next = pages.shift();
      if (!next) throw new Error("asked past the last page");
      if (next instanceof Error) throw next;
      return next;
    },
    async countKeys() {
      fake.counts += 1;
      return count();
    },
  };
  return fake;
}

async function read(client: PagingClient, pageSize?: number): Promise<RemoteKeyPage[]> {
  const pages: RemoteKeyPage[] = [];
  for await (const page of remoteKeyPages(client, "_", pageSize)) pages.push(page);
  return pages;
}

test("a remote that ignores paging is one page, its whole list, without a count request", async () => {
  const client = fakeClient([{ keys: keys(0, 5), nextCursor: null, paged: false }]);
  const pages = await read(client);
  assert.deepEqual(
    pages.map((page) => [page.keys.length, page.total]),
    [[5, 5]],
  );
  assert.deepEqual(client.asked, [{ limit: 1000, cursor: undefined }]);
  assert.equal(client.counts, 0);
});

test("pages follow nextCursor; the count, asked once when there is a second page, is the total", async () => {
  const client = fakeClient(
    [
      { keys: keys(0, 2), nextCursor: "a", paged: true },
      { keys: keys(2, 4), nextCursor: "b", paged: true },
      { keys: keys(4, 5), nextCursor: null, paged: true },
    ],
    async () => 5,
  );
  const pages = await read(client, 2);
  assert.deepEqual(
    client.asked.map((asked) => asked.cursor),
    [undefined, "a", "b"],
  );
  assert.ok(client.asked.every((asked) => asked.limit === 2));
  assert.equal(client.counts, 1);
  assert.deepEqual(
    pages.map((page) => page.total),
    [5, 5, 5],
  );
});

test("without a count (none, or failing) the total is known at the last page", async () => {
  for (const count of [async () => null, async () => Promise.reject(new Error("boom"))]) {
    const client = fakeClient(
      [
        { keys: keys(0, 2), nextCursor: "a", paged: true },
        { keys: keys(2, 3), nextCursor: null, paged: true },
      ],
      count,
    );
    assert.deepEqual(
      (await read(client)).map((page) => page.total),
      [null, 3],
    );
  }
});

test("a single page that says it is the last needs no count", async () => {
  const client = fakeClient([{ keys: keys(0, 3), nextCursor: null, paged: true }], async () => 99);
  assert.deepEqual(
    (await read(client)).map((page) => page.total),
    [3],
  );
  assert.equal(client.counts, 0);
});

test("a cursor given again (the previous one or an earlier one) ends the pull instead of looping", async () => {
  for (const loop of ["b", "a"]) {
    const client = fakeClient([
      { keys: keys(0, 2), nextCursor: "a", paged: true },
      { keys: keys(2, 4), nextCursor: "b", paged: true },
      { keys: keys(4, 6), nextCursor: loop, paged: true },
    ]);
    await assert.rejects(read(client), (error: unknown) => {
      assert.ok(error instanceof LinkFailure);
      assert.equal(error.failure.kind, "unavailable");
      assert.match(
        error.message,
        /page 3 of its key list with a cursor it had already given \(it pages in a loop\)/,
      );
      return true;
    });
    assert.equal(client.asked.length, 3);
  }
});

test("a page that fails ends the pull: the first page's failure as it was, a later one says how far it got", async () => {
  const first = fakeClient([new ServiceCallFailure("UNAUTHORIZED", "who are you", undefined, 401)]);
  await assert.rejects(read(first), (error: unknown) => {
    assert.ok(error instanceof LinkFailure);
    assert.equal(error.failure.kind, "credentials");
    assert.doesNotMatch(error.message, /page/);
    return true;
  });
  const later = fakeClient([
    { keys: keys(0, 2), nextCursor: "a", paged: true },
    new ServiceCallFailure("BAD_REQUEST", "cursor is not a cursor this service gave", undefined, 400),
  ]);
  await assert.rejects(read(later), (error: unknown) => {
    assert.ok(error instanceof LinkFailure);
    assert.equal(error.failure.kind, "refused");
    assert.match(
      error.message,
      /^page 2 of the remote's key list failed after 2 keys \(HTTP 400 BAD_REQUEST: /,
    );
    return true;
  });
});

test("the page size is kept within what the API accepts", async () => {
  for (const [given, asked] of [
    [0, 1],
    [50_000, 10_000],
    [250.5, 250],
  ]) {
    const client = fakeClient([{ keys: [], nextCursor: null, paged: true }]);
    await read(client, given);
    assert.equal(client.asked[0]?.limit, asked);
  }
});
