import { AUTH_FAILURE_PURGE_BATCH, type AuthFailureWrites } from "../store.ts";
import { advisoryLockKey, type Sql } from "./sql.ts";

/** The advisory lock key of one address's bucket: a 64-bit hash, the same on every replica. */
function authFailureLockOf(address: string): string {
  return advisoryLockKey(`keydesk/auth-failures/${address}`);
}

/**
 * The throttle's buckets on PostgreSQL. `read` first takes the address's advisory lock, held to
 * the commit: an attempt through another replica waits there and then reads this one's bucket,
 * so concurrent failures are each counted once (a row lock would not cover an address without a
 * row yet). The purge skips rows another write holds and never waits.
 */
export function postgresBucketRows(sql: Sql): AuthFailureWrites {
  return {
    async read(address) {
      await sql.rows("SELECT pg_advisory_xact_lock($1)", [authFailureLockOf(address)]);
      const [row] = await sql.rows<{ tokens: number; updated_at: number }>(
        "SELECT tokens, updated_at FROM auth_failures WHERE address = $1",
        [address],
      );
      return row && { tokens: row.tokens, updatedAt: row.updated_at };
    },
    async save(address, bucket) {
      if (!bucket) {
        await sql.count("DELETE FROM auth_failures WHERE address = $1", [address]);
        return;
      }
      await sql.count(
        `INSERT INTO auth_failures (address, tokens, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (address) DO UPDATE SET tokens = excluded.tokens, updated_at = excluded.updated_at`,
        [address, bucket.tokens, bucket.updatedAt],
      );
    },
    async purge(before) {
      await sql.count(
        `DELETE FROM auth_failures WHERE address IN (SELECT address FROM auth_failures
           WHERE updated_at <= $1 LIMIT ${AUTH_FAILURE_PURGE_BATCH} FOR UPDATE SKIP LOCKED)`,
        [before],
      );
    },
  };
}
