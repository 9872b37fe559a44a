import type { Db } from "./database.ts";
import { AUTH_FAILURE_PURGE_BATCH, type AuthFailureWrites } from "./store.ts";

/** SQLite's rows (a write holds the whole database: nothing to lock). */
export function sqliteBucketRows(db: Db): AuthFailureWrites {
  const read = db.prepare<[string], { tokens: number; updated_at: number }>(
    "SELECT tokens, updated_at FROM auth_failures WHERE address = ?",
  );
  const upsert = db.prepare(
    `INSERT INTO auth_failures (address, tokens, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (address) DO UPDATE SET tokens = excluded.tokens, updated_at = excluded.updated_at`,
  );
  const remove = db.prepare("DELETE FROM auth_failures WHERE address = ?");
  const purge = db.prepare(
    `DELETE FROM auth_failures WHERE address IN
       (SELECT address FROM auth_failures WHERE updated_at <= ? LIMIT ${AUTH_FAILURE_PURGE_BATCH})`,
  );
  return {
    read: async (address) => {
      const row = read.get(address);
      return row && { tokens: row.tokens, updatedAt: row.updated_at };
    },
    save: async (address, bucket) => {
      if (bucket) upsert.run(address, bucket.tokens, bucket.updatedAt);
      else remove.run(address);
    },
    purge: async (before) => {
      purge.run(before);
    },
  };
}
