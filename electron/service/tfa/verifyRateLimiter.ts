import { type RateLimit, windowDecision } from "./limits.ts";

interface Calls {
  times: number[];
  windowMs: number;
}

/**
 * verifyPinLimit, per pinId: the times of recent verify calls, in memory (they start afresh when
 * the service restarts). Calls refused with 429 are not counted.
 */
export class VerifyRateLimiter {
  readonly #calls = new Map<string, Calls>();
  readonly #maxTracked: number;

  constructor(maxTracked = 100_000) {
    this.#maxTracked = maxTracked;
  }

  /** Records a call when the limit allows it; otherwise answers how long until one more fits. */
  take(
    pinId: string,
    limit: RateLimit,
    now: number,
  ): { allowed: true } | { allowed: false; retryAfterMs: number } {
    const calls = this.#calls.get(pinId) ?? { times: [], windowMs: limit.windowMs };
    calls.windowMs = limit.windowMs;
    calls.times = calls.times.filter((time) => time > now - limit.windowMs);
    const decision = windowDecision(limit, calls.times[calls.times.length - limit.attempts], now);
    if (decision.allowed) {
      calls.times.push(now);
      this.#calls.delete(pinId);
      this.#calls.set(pinId, calls);
      this.#prune(now);
    }
    return decision;
  }

  /** Forgets PINs whose calls all left their window, oldest first, once many are tracked. */
  #prune(now: number): void {
    if (this.#calls.size <= this.#maxTracked) return;
    for (const [pinId, calls] of this.#calls) {
      const last = calls.times[calls.times.length - 1] ?? 0;
      if (last <= now - calls.windowMs || this.#calls.size > this.#maxTracked) this.#calls.delete(pinId);
      if (this.#calls.size <= this.#maxTracked / 2) return;
    }
  }
}
