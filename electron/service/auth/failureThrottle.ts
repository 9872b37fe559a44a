/**
 * Limits password guesses per client address with a token bucket: every attempt that needs
 * the password KDF takes a token, a successful one gives it back. Other addresses are not
 * affected, and credentials already verified never need a token (see VerifiedCredentials),
 * so a misconfigured app on the same machine cannot lock its admin out.
 */

export interface ThrottleOptions {
  /** Failed attempts allowed in a burst. */
  burst: number;
  /** One more attempt is allowed every this many milliseconds. */
  refillMs: number;
  /** Addresses tracked at most; the least recently seen are forgotten first. */
  maxTracked: number;
  now: () => number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class FailureThrottle {
  readonly #options: ThrottleOptions;
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: Partial<ThrottleOptions> = {}) {
    this.#options = { burst: 10, refillMs: 6_000, maxTracked: 100_000, now: Date.now, ...options };
  }

  /** The address's bucket, refilled for the time that passed. */
  #current(address: string): Bucket {
    const now = this.#options.now();
    const bucket = this.#buckets.get(address) ?? { tokens: this.#options.burst, updatedAt: now };
    const refilled = bucket.tokens + (now - bucket.updatedAt) / this.#options.refillMs;
    return { tokens: Math.min(this.#options.burst, refilled), updatedAt: now };
  }

  /** Stores a bucket as the most recently seen; a full bucket needs no entry at all. */
  #save(address: string, bucket: Bucket): void {
    this.#buckets.delete(address);
    if (bucket.tokens >= this.#options.burst) return;
    this.#buckets.set(address, bucket);
    if (this.#buckets.size > this.#options.maxTracked) {
      this.#buckets.delete(this.#buckets.keys().next().value as string);
    }
  }

  /** Takes one attempt; returns 0 when allowed, otherwise the seconds until one is. */
  take(address: string): number {
    const bucket = this.#current(address);
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.#save(address, bucket);
    return allowed ? 0 : Math.ceil(((1 - bucket.tokens) * this.#options.refillMs) / 1000);
  }

  /** Attempts the address has left now (fractional while refilling); taking none. */
  remaining(address: string): number {
    return this.#current(address).tokens;
  }

  /** Gives back the attempt a successful sign-in took. */
  refund(address: string): void {
    const bucket = this.#current(address);
    bucket.tokens = Math.min(this.#options.burst, bucket.tokens + 1);
    this.#save(address, bucket);
  }
}
