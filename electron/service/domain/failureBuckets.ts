/**
 * The failed sign-in throttle's token bucket per client address, as plain functions: the
 * in-memory FailureThrottle (one process) and the store's `authFailures` (replicas of a shared
 * database) keep the same buckets by the same rules.
 */

export interface FailureRule {
  /** Failed attempts allowed in a burst. */
  burst: number;
  /** One more attempt is allowed every this many milliseconds. */
  refillMs: number;
}

export interface FailureBucket {
  tokens: number;
  updatedAt: number;
}

/** The bucket refilled for the time that passed; an address without one has a full bucket. */
export function refilled(bucket: FailureBucket | undefined, now: number, rule: FailureRule): FailureBucket {
  if (!bucket) return { tokens: rule.burst, updatedAt: now };
  const tokens = bucket.tokens + (now - bucket.updatedAt) / rule.refillMs;
  return { tokens: Math.min(rule.burst, tokens), updatedAt: now };
}

/** Takes one attempt if one is left: the bucket to keep, and 0 or the seconds until one is. */
export function takeAttempt(
  bucket: FailureBucket,
  rule: FailureRule,
): { bucket: FailureBucket; retryAfter: number } {
  if (bucket.tokens >= 1) return { bucket: { ...bucket, tokens: bucket.tokens - 1 }, retryAfter: 0 };
  return { bucket, retryAfter: Math.ceil(((1 - bucket.tokens) * rule.refillMs) / 1000) };
}

/** Gives back the attempt a successful sign-in took. */
export function refundAttempt(bucket: FailureBucket, rule: FailureRule): FailureBucket {
  return { ...bucket, tokens: Math.min(rule.burst, bucket.tokens + 1) };
}

/** A full bucket is the same as none: it need not be kept. */
export const isFull = (bucket: FailureBucket, rule: FailureRule): boolean => bucket.tokens >= rule.burst;

/** A bucket last changed this long ago is full again, whatever it held. */
export const fullAgainAfterMs = (rule: FailureRule): number => rule.burst * rule.refillMs;
