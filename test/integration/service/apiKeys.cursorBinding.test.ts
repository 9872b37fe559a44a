import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { formatApiDateTime } from "../../../shared/datetime.ts";
import type { ApiResponse } from "../../harness/keyServiceProcess.ts";
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
 * A list's paging cursor belongs to the list it came from (issue 30): the account listed and the
 * query that selects and orders it. A cursor of another account's list, of another query, one
 * changed in any character or one forged for any row is a 400 naming `cursor`, whatever the row.
 *
 * The attack these tests stop: a cursor used to be "k1.<row id>" in base64url, any row of the
 * database, and a sorted list read that row's sort value to position the page without checking
 * whose row it was. So STRANGER, listing its own keys apple, kiwi, pear and zucchini with
 * `?sort=name&limit=10&cursor=<k1 of the owner's "mango" row>`, got 200 [pear, zucchini]: the
 * victim's name sorts between kiwi and pear. Bisecting with names of its own (about 1,000
 * requests) it read every name of the victim's keys (case-folded), and with sort=state and
 * sort=validTo their enabled state and exact validTo. A sub-account could do the same to its
 * parent's keys.
 */

let service: Service;
const OWNER = "owner";
const SUB = "sub";
const STRANGER = "stranger";
const DAY = 24 * 3600_000;
const SORTS = ["name", "state", "validTo"];
const ORDERS = ["asc", "desc"];
/** Row ids of the owner's keys (the victim's), read from the owner's own cursors. */
const victimRows: number[] = [];

interface Page {
  apiKeys: ApiKey[];
  nextCursor: string | null;
}

before(async () => {
  service = await startService([
    { username: OWNER, password: "owner-secret-1" },
    { username: SUB, password: "sub-secret-12", parent: OWNER },
    { username: STRANGER, password: "stranger-secret-1" },
  ]);
  const now = Date.now();
  const validTo = (days: number) => ({ validTo: formatApiDateTime(now + days * DAY) });
  // The attackers' own keys spread over every order, so that any position shows in their pages.
  for (const username of [STRANGER, SUB]) {
    await service.createKey(username, { name: "apple", ...validTo(10) });
    await disable(username, await service.createKey(username, { name: "kiwi", ...validTo(40) }));
    await service.createKey(username, { name: "pear", ...validTo(60) });
    await service.createKey(username, { name: "zucchini" });
  }
  await service.createKey(OWNER, { name: "mango", ...validTo(50) });
  await disable(OWNER, await service.createKey(OWNER, { name: "Banana", ...validTo(20) }));
  await service.createKey(OWNER, { name: "quince" });
  await service.createKey(OWNER, { name: "last" });
  for (let cursor: string | null = null; ; ) {
    const page: Page = await listPage(OWNER, `limit=1${cursor ? `&cursor=${cursor}` : ""}`);
    if (page.nextCursor === null) break;
    victimRows.push(rowIdOf(page.nextCursor));
    cursor = page.nextCursor;
  }
  assert.equal(victimRows.length, 3, "the owner's first three keys are the victims");
});
after(async () => {
  await service?.close();
});

async function disable(username: string, key: ApiKey): Promise<void> {
  const res = await service.call({
    method: "PUT",
    path: keyPath(key.key),
    authorization: service.auth(username),
    body: { enabled: false },
  });
  assertOk(res);
}

function list(username: string, query: string, accountKey = "_"): Promise<ApiResponse> {
  return service.call({ path: `${keysPath(accountKey)}?${query}`, authorization: service.auth(username) });
}

async function listPage(username: string, query: string, accountKey = "_"): Promise<Page> {
  return assertOk<Page>(await list(username, query, accountKey));
}

/** A cursor's text: "k<version>.<row id>" and, since the fix, ".<tag>". */
const textOf = (cursor: string) => Buffer.from(cursor, "base64url").toString("utf8");

function rowIdOf(cursor: string): number {
  const match = /^k\d+\.(\d+)/.exec(textOf(cursor));
  assert.ok(match, `a cursor naming a row: ${textOf(cursor)}`);
  return Number(match[1]);
}

/** The cursor with another row id in it, everything else kept (what a forger would try first). */
const withRowId = (cursor: string, id: number) =>
  Buffer.from(textOf(cursor).replace(/^(k\d+\.)\d+/, `$1${id}`), "utf8").toString("base64url");

/** The cursor of the old format, which any caller could write for any row. */
const k1 = (id: number) => Buffer.from(`k1.${id}`, "utf8").toString("base64url");

/** The first page's cursor of a query (the query has at least two keys). */
async function cursorOf(username: string, query: string, accountKey = "_"): Promise<string> {
  const { nextCursor } = await listPage(username, `${query}&limit=1`, accountKey);
  assert.ok(nextCursor, query);
  return nextCursor;
}

test("another account, or a sub-account toward its parent, learns nothing of a victim's key from a cursor naming its row", async () => {
  for (const attacker of [STRANGER, SUB]) {
    for (const sort of SORTS) {
      for (const order of ORDERS) {
        const query = `sort=${sort}&order=${order}`;
        const own = await cursorOf(attacker, query);
        const victims = await cursorOf(OWNER, query);
        const refusals: string[][] = [];
        for (const row of victimRows) {
          const forms = {
            "a k1 cursor for the row": k1(row),
            "its own cursor with the row's id": withRowId(own, row),
            "the victim's own cursor with the row's id": withRowId(victims, row),
          };
          for (const [form, cursor] of Object.entries(forms)) {
            const res = await list(attacker, `${query}&limit=10&cursor=${cursor}`);
            assert.equal(
              res.status,
              400,
              `${attacker}, ${query}, ${form} (row ${row}): ${res.status} ${res.text}`,
            );
            refusals.push(assertValidationError(res, "cursor"));
          }
        }
        // Word for word the answer for a row that does not exist: the refusal tells nothing of the row.
        const nowhere = await list(attacker, `${query}&limit=10&cursor=${withRowId(own, 10 ** 9)}`);
        const refusal = assertValidationError(nowhere, "cursor");
        for (const each of refusals) assert.deepEqual(each, refusal);
        // The victim's genuine cursor, had it leaked, positions nothing in another account's list.
        assertValidationError(await list(attacker, `${query}&limit=10&cursor=${victims}`), "cursor");
      }
    }
  }
});

test("a cursor of one account's list is refused in another's, also between a parent and its sub-account", async () => {
  const query = "sort=name&order=asc";
  const subs = await cursorOf(OWNER, query, service.accountKeys[SUB]);
  // The same list through another path is the same list: the sub-account's own cursor pages it.
  assert.ok((await listPage(SUB, `${query}&limit=1&cursor=${subs}`)).apiKeys.length > 0);
  assertValidationError(await list(OWNER, `${query}&limit=1&cursor=${subs}`), "cursor");
  const owners = await cursorOf(OWNER, query);
  assertValidationError(
    await list(OWNER, `${query}&limit=1&cursor=${owners}`, service.accountKeys[SUB]),
    "cursor",
  );
  assertValidationError(await list(STRANGER, `${query}&limit=1&cursor=${subs}`), "cursor");
});

test("a cursor reused with another filter or sort is a 400; another limit or include= is the same list", async () => {
  const cursor = await cursorOf(STRANGER, "sort=name&order=asc");
  for (const other of [
    "sort=name&order=desc",
    "sort=validTo&order=asc",
    "sort=state&order=asc",
    "",
    "sort=name&order=asc&nameContains=a",
    "sort=name&order=asc&enabled=true",
    "sort=name&order=asc&permission=ALL",
    "sort=name&order=asc&state=enabled",
    "sort=name&order=asc&name=pear",
  ]) {
    const res = await list(STRANGER, `${other}&limit=10&cursor=${cursor}`);
    assertValidationError(res, "cursor");
  }
  const same = await listPage(STRANGER, `sort=name&order=asc&limit=2&include=created&cursor=${cursor}`);
  assert.deepEqual(
    same.apiKeys.map((key) => key.name),
    ["kiwi", "pear"],
  );
  const rest = await listPage(STRANGER, `sort=name&order=asc&cursor=${same.nextCursor}`);
  assert.deepEqual(
    rest.apiKeys.map((key) => key.name),
    ["zucchini"],
  );
});

test("equivalent spellings of one query share its cursors: default order and sort, blank nameContains", async () => {
  const byName = await cursorOf(STRANGER, "sort=name");
  const named = await listPage(STRANGER, `sort=name&order=asc&nameContains=%20&limit=10&cursor=${byName}`);
  assert.deepEqual(
    named.apiKeys.map((key) => key.name),
    ["kiwi", "pear", "zucchini"],
  );
  const created = await cursorOf(STRANGER, "");
  const same = await listPage(STRANGER, `sort=created&order=asc&limit=10&cursor=${created}`);
  assert.deepEqual(
    same.apiKeys.map((key) => key.name),
    ["kiwi", "pear", "zucchini"],
  );
});

test("a cursor changed in any one character, and a k1 cursor of the caller's own row, are 400s", async () => {
  const query = "sort=name&order=asc";
  const cursor = await cursorOf(STRANGER, query);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  for (let at = 0; at < cursor.length; at++) {
    const next = alphabet[(alphabet.indexOf(cursor[at] as string) + 1) % alphabet.length];
    const changed = `${cursor.slice(0, at)}${next}${cursor.slice(at + 1)}`;
    const res = await list(STRANGER, `${query}&limit=10&cursor=${changed}`);
    assertValidationError(res, "cursor");
  }
  const res = await list(STRANGER, `${query}&limit=10&cursor=${k1(rowIdOf(cursor))}`);
  assertValidationError(res, "cursor");
});
