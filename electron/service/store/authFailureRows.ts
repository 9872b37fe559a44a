import {
  type FailureBucket,
  type FailureRule,
  fullAgainAfterMs,
  isFull,
  refilled,
  refundAttempt,
  takeAttempt,
} from "../domain/failureBuckets.ts";
import type { AuthFailureWrites } from "./store.ts";

// The failed-login throttle: rows and codecs the same on SQLite (authFailureStore.ts) and
// PostgreSQL (postgres/postgresAuthFailures.ts). No SQL dialect and no connection here, so neither
// store imports the other's code.

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
