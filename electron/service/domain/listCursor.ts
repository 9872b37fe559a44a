/**
 * A list's paging cursor: the position after the last row of a page (its row id), opaque to
 * clients. Positions only grow, so a page read after concurrent inserts neither repeats nor skips
 * a row that existed when the first page was read; new rows appear at the end.
 *
 * A cursor is sealed for the list it came from (issue 30): the row id, encrypted and authenticated
 * (XChaCha20-Poly1305, `SecretBox.sealCursor`) with a binding as additional data (the list's
 * purpose, the account it lists, and the query that selects and orders it), under a key only the
 * service holds. So a client can neither read the id (ids count every account's rows: they would
 * tell how busy the others are) nor write a cursor for another row, and a cursor of another
 * account's list or of another query is refused before any row is read: a client cannot make the
 * service position a page at a row of someone else's (a sorted list would otherwise order by that
 * row's values and show them). Earlier cursors ("k1.<id>", "k2.<id>.<tag>") are refused like any
 * unknown text.
 */

const PREFIX = "c";
/** Row ids sealed as 16 digits: every cursor has the same length, whatever the row. */
const ID_DIGITS = 16;
const ID_PATTERN = /^\d{16}$/;

/** What a refused cursor's 400 says, whatever the reason: it tells nothing of the row it names. */
export const CURSOR_REFUSED =
  "is not a cursor this service gave for this list (pass the nextCursor of the page before with the same query, or leave it out to start over)";

/** How cursors are sealed for their list (the store's `apiKeys`, or a SecretBox). */
export interface CursorSeal {
  sealCursor(text: string, binding: string): Buffer;
  openCursor(sealed: Uint8Array, binding: string): string | undefined;
}

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

export function encodeListCursor(lastId: number, binding: string, seal: CursorSeal): string {
  return `${PREFIX}${seal.sealCursor(String(lastId).padStart(ID_DIGITS, "0"), binding).toString("base64url")}`;
}

/** The row id a cursor stands for, or null when it is not one this service gave for this binding. */
export function decodeListCursor(cursor: string, binding: string, seal: CursorSeal): number | null {
  if (cursor.length > 128 || !/^c[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const sealed = Buffer.from(cursor.slice(PREFIX.length), "base64url");
  // Exactly the text the service writes: no second spelling of a cursor (unused trailing bits).
  if (sealed.toString("base64url") !== cursor.slice(PREFIX.length)) return null;
  const text = seal.openCursor(sealed, binding);
  if (text === undefined || !ID_PATTERN.test(text)) return null;
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : null;
}
