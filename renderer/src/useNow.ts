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
