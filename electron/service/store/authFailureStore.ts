import {
  type FailureBucket,
  type FailureRule,
  fullAgainAfterMs,
  isFull,
  refilled,
  refundAttempt,
  takeAttempt,
} from "../domain/failureBuckets.ts";
import type { Db } from "./database.ts";
import type { AuthFailureWrites } from "./store.ts";

/** Buckets full again by time deleted per take (a full bucket is the same as none). */
export const AUTH_FAILURE_PURGE_BATCH = 100;

/** What each database does for `authFailures`: rows of `auth_failures`. */
export interface BucketRows {
  /** The address's bucket; first, where replicas share the table, holds the address to the commit. */
  read(address: string): Promise<FailureBucket | undefined>;
  /** Keeps the bucket; undefined deletes it. */
  save(address: string, bucket: FailureBucket | undefined): Promise<void>;
  /** Deletes up to AUTH_FAILURE_PURGE_BATCH buckets last changed at or before `before`. */
  purge(before: number): Promise<void>;
}

/** The throttle's rules (domain/failureBuckets.ts) on stored buckets, inside a write. */
export function authFailuresOn(rows: BucketRows): AuthFailureWrites {
  const keep = (address: string, bucket: FailureBucket, rule: FailureRule) =>
    rows.save(address, isFull(bucket, rule) ? undefined : bucket);
  return {
    async take(address, rule, now) {
      const { bucket, retryAfter } = takeAttempt(refilled(await rows.read(address), now, rule), rule);
      await keep(address, bucket, rule);
      // Last, and never waiting (PostgreSQL skips rows others hold): no lock order to deadlock on.
      await rows.purge(now - fullAgainAfterMs(rule));
      return retryAfter;
    },
    async refund(address, rule, now) {
      await keep(address, refundAttempt(refilled(await rows.read(address), now, rule), rule), rule);
    },
  };
}

/** SQLite's rows (a write holds the whole database: nothing to lock). */
export function sqliteBucketRows(db: Db): BucketRows {
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
