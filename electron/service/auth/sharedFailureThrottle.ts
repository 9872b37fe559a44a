import {
  type FailureBucket,
  type FailureRule,
  fullAgainAfterMs,
  isFull,
  refilled,
  refundAttempt,
  takeAttempt,
} from "../domain/failureBuckets.ts";
import type { AuthFailureWrites, Store } from "../store/store.ts";

/**
 * The failed sign-in throttle's buckets in the store, for replicas of a shared database: an
 * address gets its burst once whichever replicas it tries (each replica's FailureThrottle alone
 * would give it a burst per replica). Used beside the in-memory FailureThrottle, which still
 * refuses a flooding address without a database round trip and feeds the password-check queue.
 * The rules are domain/failureBuckets.ts's, the same as FailureThrottle's; the store keeps rows.
 */
export class SharedFailureThrottle {
  readonly #store: Pick<Store, "write">;
  readonly #rule: FailureRule;
  readonly #now: () => number;

  constructor(store: Pick<Store, "write">, rule: FailureRule, now: () => number = Date.now) {
    this.#store = store;
    this.#rule = rule;
    this.#now = now;
  }

  /** Takes one attempt; 0 when allowed, otherwise the seconds until one is. */
  take(address: string): Promise<number> {
    return this.#store.write(async (tx) => {
      const now = this.#now();
      const { bucket, retryAfter } = takeAttempt(
        refilled(await tx.authFailures.read(address), now, this.#rule),
        this.#rule,
      );
      await this.#keep(tx.authFailures, address, bucket);
      // Last, and never waiting (PostgreSQL skips rows others hold): no lock order to deadlock on.
      await tx.authFailures.purge(now - fullAgainAfterMs(this.#rule));
      return retryAfter;
    });
  }

  /** Gives back the attempt a successful sign-in took. */
  refund(address: string): Promise<void> {
    return this.#store.write(async (tx) => {
      const bucket = refilled(await tx.authFailures.read(address), this.#now(), this.#rule);
      await this.#keep(tx.authFailures, address, refundAttempt(bucket, this.#rule));
    });
  }

  /** A full bucket is the same as none: no row kept for it. */
  #keep(rows: AuthFailureWrites, address: string, bucket: FailureBucket): Promise<void> {
    return rows.save(address, isFull(bucket, this.#rule) ? undefined : bucket);
  }
}
