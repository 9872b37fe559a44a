import { useEffect, useState } from "react";

/**
 * The current time, moved on every `everyMs` (15 s by default): for words like "3 min ago" that
 * change with time alone. One timer per caller, none while it is unmounted.
 */
export function useNow(everyMs = 15_000): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/**
 * The time to say how long ago something happened: `ticked` (useNow's, which moves every 15 s) or
 * the clock, whichever is later. A view that renders between two ticks because something just
 * happened (a run ended) then says "just now", not "in 6 s".
 */
export function latestNow(ticked: number, clock = Date.now()): number {
  return Math.max(ticked, clock);
}

/** useNow, never behind the clock when the view renders for another reason (latestNow). */
export function useLatestNow(everyMs?: number): number {
  return latestNow(useNow(everyMs));
}

/**
 * setTimeout fires at once for delays over 2^31-1 ms (~24.8 days): longer waits are done in steps.
 * @internal Exported for tests.
 */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * How long to wait from `now` for `at`: never negative, never more than a timer can hold.
 * @internal Exported for tests.
 */
export function timerDelay(at: number, now: number): number {
  return Math.min(Math.max(0, at - now), MAX_TIMER_DELAY_MS);
}

/**
 * The current time, moved on only at the instant `nextAt(now)` names (null: never), with one timer
 * for it and nothing running in between: for a state that changes at known times (a PIN expiring).
 */
export function useNowUntil(nextAt: (now: number) => number | null): number {
  const [now, setNow] = useState(Date.now);
  const next = nextAt(now);
  // A timer may fire a little early (or a long wait is done in steps): `now` then moves on but
  // stays before `next`, and this effect must run again to set the next timer.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `now` re-arms the timer (see above)
  useEffect(() => {
    if (next === null) return;
    const timer = setTimeout(() => setNow(Date.now()), timerDelay(next, Date.now()));
    return () => clearTimeout(timer);
  }, [next, now]);
  return now;
}
