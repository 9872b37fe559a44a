/**
 * The list's paging cursor: the position after the last key of a page (its row id), opaque to
 * clients. Positions only grow, so a page read after concurrent inserts neither repeats nor skips
 * a key that existed when the first page was read; new keys appear at the end.
 */

const PREFIX = "k1.";

export function encodeListCursor(lastId: number): string {
  return Buffer.from(`${PREFIX}${lastId}`, "utf8").toString("base64url");
}

/** The row id a cursor stands for, or null when it is not one this service gave. */
export function decodeListCursor(cursor: string): number | null {
  if (cursor.length === 0 || cursor.length > 64 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  if (!text.startsWith(PREFIX)) return null;
  const digits = text.slice(PREFIX.length);
  if (!/^(0|[1-9]\d{0,15})$/.test(digits)) return null;
  const id = Number(digits);
  return Number.isSafeInteger(id) && encodeListCursor(id) === cursor ? id : null;
}
