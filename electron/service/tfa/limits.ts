/**
 * The provider's time formats: a duration `{timeLength}{timeUnit}` (pinTimeToLive) and a rate
 * limit `{attempts}/{timeLength}{timeUnit}` (verifyPinLimit, sendPin...Limit). timeLength is
 * optional (default 1); units are ms, s, m, h, d. Durations must be positive and at most one year.
 */

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** 365 days: the longest time-to-live or limit window the provider allows. */
export const MAX_DURATION_MS = 365 * UNIT_MS.d;
/** The most attempts a rate limit may name. */
export const MAX_LIMIT_ATTEMPTS = 1_000_000;

export const DURATION_HINT = "{timeLength}{timeUnit} with a unit of ms, s, m, h or d, for example 15m";
export const RATE_LIMIT_HINT =
  "{attempts}/{timeLength}{timeUnit} with a unit of ms, s, m, h or d, for example 3/1d";

const DURATION = /^(\d{1,12})?(ms|s|m|h|d)$/;
const RATE_LIMIT = /^(\d{1,12})\/(.*)$/;

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

export interface RateLimit {
  attempts: number;
  windowMs: number;
}

/** Milliseconds of a duration such as `15m`, `500ms` or `d`. */
export function parseDuration(text: string): Parsed<number> {
  const match = DURATION.exec(text);
  if (!match) return { ok: false, problem: `must be ${DURATION_HINT}` };
  const length = match[1] === undefined ? 1 : Number(match[1]);
  const ms = length * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (ms <= 0) return { ok: false, problem: "must be longer than zero" };
  if (ms > MAX_DURATION_MS) return { ok: false, problem: "must not exceed one year (365d)" };
  return { ok: true, value: ms };
}

/** Attempts and window of a limit such as `10000/1d` or `1/3s`. */
export function parseRateLimit(text: string): Parsed<RateLimit> {
  const match = RATE_LIMIT.exec(text);
  if (!match) return { ok: false, problem: `must be ${RATE_LIMIT_HINT}` };
  const attempts = Number(match[1]);
  if (attempts < 1) return { ok: false, problem: "must allow at least 1 attempt" };
  if (attempts > MAX_LIMIT_ATTEMPTS) {
    return { ok: false, problem: `must allow at most ${MAX_LIMIT_ATTEMPTS} attempts` };
  }
  const window = parseDuration(match[2] as string);
  if (!window.ok) {
    return { ok: false, problem: `has a time window that ${window.problem} (${RATE_LIMIT_HINT})` };
  }
  return { ok: true, value: { attempts, windowMs: window.value } };
}

/**
 * Sliding window: one more event is allowed unless `limit.attempts` events already happened within
 * the window ending now. `nthNewest` is the time of the attempts-th most recent event (undefined
 * when there were fewer); when it is inside the window, one more fits once it leaves it.
 */
export function windowDecision(
  limit: RateLimit,
  nthNewest: number | undefined,
  now: number,
): { allowed: true } | { allowed: false; retryAfterMs: number } {
  if (nthNewest === undefined || nthNewest <= now - limit.windowMs) return { allowed: true };
  return { allowed: false, retryAfterMs: Math.max(1, nthNewest + limit.windowMs - now) };
}
