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
/** Every row id of this service's keys (four keys for each of three accounts): the victim's among them. */
const ALL_ROWS = Array.from({ length: 12 }, (_, index) => index + 1);

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

/** The cursor of the old format, which any caller could write for any row. */
const k1 = (id: number) => Buffer.from(`k1.${id}`, "utf8").toString("base64url");

/** A cursor of the form the service writes now, sealed by the forger with a key of its own. */
const forged = (cursor: string) =>
  `c${Buffer.from(cursor.slice(1), "base64url").reverse().toString("base64url")}`;

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
        // The old cursor of every row of the service (the victim's among them), and one of today's
        // form the attacker made up: none positions a page.
        for (const [form, cursor] of [
          ...ALL_ROWS.map((row) => [`a k1 cursor for row ${row}`, k1(row)]),
          ["its own cursor, altered", forged(own)],
        ]) {
          const res = await list(attacker, `${query}&limit=10&cursor=${cursor}`);
          assert.equal(res.status, 400, `${attacker}, ${query}, ${form}: ${res.status} ${res.text}`);
          refusals.push(assertValidationError(res, "cursor"));
        }
        // Word for word the answer for a row that does not exist: the refusal tells nothing of the row.
        const nowhere = await list(attacker, `${query}&limit=10&cursor=${k1(10 ** 9)}`);
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

test("a cursor changed in any one character, and a k1 cursor of any row, are 400s", async () => {
  const query = "sort=name&order=asc";
  const cursor = await cursorOf(STRANGER, query);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  for (let at = 0; at < cursor.length; at++) {
    const next = alphabet[(alphabet.indexOf(cursor[at] as string) + 1) % alphabet.length];
    const changed = `${cursor.slice(0, at)}${next}${cursor.slice(at + 1)}`;
    const res = await list(STRANGER, `${query}&limit=10&cursor=${changed}`);
    assertValidationError(res, "cursor");
  }
  for (const row of ALL_ROWS)
    assertValidationError(await list(STRANGER, `${query}&limit=10&cursor=${k1(row)}`), "cursor");
});
