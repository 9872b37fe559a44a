import type { FailureRule } from "../domain/failureBuckets.ts";
import type { Store } from "../store/store.ts";

/**
 * The failed sign-in throttle's buckets in the store, for replicas of a shared database: an
 * address gets its burst once whichever replicas it tries (each replica's FailureThrottle alone
 * would give it a burst per replica). Used beside the in-memory FailureThrottle, which still
 * refuses a flooding address without a database round trip and feeds the password-check queue.
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
    return this.#store.write((tx) => tx.authFailures.take(address, this.#rule, this.#now()));
  }

  /** Gives back the attempt a successful sign-in took. */
  refund(address: string): Promise<void> {
    return this.#store.write((tx) => tx.authFailures.refund(address, this.#rule, this.#now()));
  }
}
