import type { RateLimit } from "../../../shared/tfaSchemas.ts";

/**
 * The provider's time formats are parsed in shared/tfaSchemas.ts (the renderer's forms check them
 * too) and re-exported here; the sliding-window decision behind the limits is the service's own.
 */

export {
  MAX_DURATION_MS,
  parseDuration,
  parseRateLimit,
  type RateLimit,
} from "../../../shared/tfaSchemas.ts";

/** A limit's answer to one more event: allowed, or how long until one fits. */
export type WindowDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

/**
 * Sliding window: one more event is allowed unless `limit.attempts` events already happened within
 * the window ending now. `nthNewest` is the time of the attempts-th most recent event (undefined
 * when there were fewer); when it is inside the window, one more fits once it leaves it.
 */
export function windowDecision(limit: RateLimit, nthNewest: number | undefined, now: number): WindowDecision {
  if (nthNewest === undefined || nthNewest <= now - limit.windowMs) return { allowed: true };
  return { allowed: false, retryAfterMs: Math.max(1, nthNewest + limit.windowMs - now) };
}
