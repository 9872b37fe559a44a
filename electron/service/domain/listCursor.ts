import { timingSafeEqual } from "node:crypto";

/**
 * A list's paging cursor: the position after the last row of a page (its row id), opaque to
 * clients. Positions only grow, so a page read after concurrent inserts neither repeats nor skips
 * a row that existed when the first page was read; new rows appear at the end.
 *
 * A cursor is bound to the list it came from (issue 30): a MAC over its row id and a binding (the
 * list's purpose, the account it lists, and the query that selects and orders it), under a key
 * only the service holds. A cursor of another account's list, of another query, or one written by
 * a client is refused before any row is read: a client cannot make the service position a page at
 * a row of someone else's (a sorted list would otherwise order by that row's values and show them).
 * "k1." cursors (a bare row id, before the binding) are refused like any unknown text.
 */

const PREFIX = "k2.";
/** The MAC is truncated to its first 16 bytes (128 bits: guessing one takes 2^128 tries). */
const TAG_BYTES = 16;
const TEXT_PATTERN = /^k2\.(0|[1-9]\d{0,15})\.([0-9a-f]{32})$/;

/** What a refused cursor's 400 says, whatever the reason: it tells nothing of the row it names. */
export const CURSOR_REFUSED =
  "is not a cursor this service gave for this list (pass the nextCursor of the page before with the same query, or leave it out to start over)";

/** The MAC of a message under the service's cursor key (HMAC-SHA256, `SecretBox.cursorTag`). */
export type CursorTag = (message: string) => Buffer;

/** Which list a cursor pages: an account's keys, or the audit history. */
export type CursorPurpose = "keys" | "audit";

/** A list query's values as parsed; absent ones are left out. */
export type CursorQuery = Readonly<Record<string, string | number | boolean | undefined>>;

/**
 * The list a cursor belongs to, as one text: the same purpose, account and query always give the
 * same text (fields in name order), any difference another. Parameters that do not change which
 * rows come in which order (limit, cursor, include) are not part of it.
 */
export function cursorBinding(purpose: CursorPurpose, accountId: number, query: CursorQuery): string {
  const fields = Object.keys(query)
    .filter((name) => query[name] !== undefined)
    .sort()
    .map((name) => [name, query[name]]);
  return JSON.stringify([purpose, accountId, fields]);
}

function tagOf(tag: CursorTag, binding: string, id: number): Buffer {
  return tag(`${PREFIX}${id}\n${binding}`).subarray(0, TAG_BYTES);
}

export function encodeListCursor(lastId: number, binding: string, tag: CursorTag): string {
  const text = `${PREFIX}${lastId}.${tagOf(tag, binding, lastId).toString("hex")}`;
  return Buffer.from(text, "utf8").toString("base64url");
}

/** The row id a cursor stands for, or null when it is not one this service gave for this binding. */
export function decodeListCursor(cursor: string, binding: string, tag: CursorTag): number | null {
  if (cursor.length === 0 || cursor.length > 128 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  // Exactly the text the service writes: no second spelling of a cursor (unused trailing bits).
  if (Buffer.from(text, "utf8").toString("base64url") !== cursor) return null;
  const match = TEXT_PATTERN.exec(text);
  if (!match) return null;
  const id = Number(match[1]);
  if (!Number.isSafeInteger(id)) return null;
  return timingSafeEqual(Buffer.from(match[2] as string, "hex"), tagOf(tag, binding, id)) ? id : null;
}
