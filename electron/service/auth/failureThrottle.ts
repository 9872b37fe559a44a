import {
  type FailureBucket,
  type FailureRule,
  isFull,
  refilled,
  refundAttempt,
  takeAttempt,
} from "../domain/failureBuckets.ts";

/**
 * Limits password guesses per client address with a token bucket: every attempt that needs
 * the password KDF takes a token, a successful one gives it back. Other addresses are not
 * affected, and credentials already verified never need a token (see VerifiedCredentials),
 * so a misconfigured app on the same machine cannot lock its admin out.
 */

export interface ThrottleOptions extends FailureRule {
  /** Addresses tracked at most; the least recently seen are forgotten first. */
  maxTracked: number;
  now: () => number;
}

export class FailureThrottle {
  readonly #options: ThrottleOptions;
  readonly #buckets = new Map<string, FailureBucket>();

  constructor(options: Partial<ThrottleOptions> = {}) {
    this.#options = { burst: 10, refillMs: 6_000, maxTracked: 100_000, now: Date.now, ...options };
  }

  /** The burst and refill, for a shared throttle that keeps the same buckets (SharedFailureThrottle). */
  get rule(): FailureRule {
    return { burst: this.#options.burst, refillMs: this.#options.refillMs };
  }

  /** The address's bucket, refilled for the time that passed. */
  #current(address: string): FailureBucket {
    return refilled(this.#buckets.get(address), this.#options.now(), this.#options);
  }

  /** Stores a bucket as the most recently seen; a full bucket needs no entry at all. */
  #save(address: string, bucket: FailureBucket): void {
    this.#buckets.delete(address);
    if (isFull(bucket, this.#options)) return;
    this.#buckets.set(address, bucket);
    if (this.#buckets.size > this.#options.maxTracked) {
      this.#buckets.delete(this.#buckets.keys().next().value as string);
    }
  }

  /** Takes one attempt; returns 0 when allowed, otherwise the seconds until one is. */
  take(address: string): number {
    const { bucket, retryAfter } = takeAttempt(this.#current(address), this.#options);
    this.#save(address, bucket);
    return retryAfter;
  }

  /** Attempts the address has left now (fractional while refilling); taking none. */
  remaining(address: string): number {
    return this.#current(address).tokens;
  }

  /** Gives back the attempt a successful sign-in took. */
  refund(address: string): void {
    this.#save(address, refundAttempt(this.#current(address), this.#options));
  }
}
