import Database from "better-sqlite3";

/**
 * Moves keys' creation time back (both the row's and the key's own), as if they had been made at
 * `at`: the keys named by id, or every key of the database. Written to the SQLite file beside a
 * running service, which reads it on its next request.
 */
export function backdateKeys(databaseFile: string, at: number, keyIds?: readonly string[]): void {
  const db = new Database(databaseFile);
  try {
    db.pragma("busy_timeout = 5000");
    const update = db.prepare(
      `UPDATE api_keys SET created_at = @at, origin_created_at = @at${keyIds ? " WHERE key = @key" : ""}`,
    );
    if (keyIds) for (const key of keyIds) update.run({ at, key });
    else update.run({ at });
  } finally {
    db.close();
  }
}
