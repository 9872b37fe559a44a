import type { TfaPinWrites } from "../store/store.ts";
import { MAX_DURATION_MS, type RateLimit, type WindowDecision, windowDecision } from "./limits.ts";

/**
 * verifyPinLimit for one verify call of a PIN, inside the verify's write: the store reads the PIN's
 * calls still in the window (taking the PIN's turn to the commit, so concurrent calls of one PIN
 * count each other), the limit decides, and an allowed call is counted; a refused one is not.
 */
export async function takeVerifyCall(
  pins: Pick<TfaPinWrites, "nthNewestVerifyCall" | "recordVerifyCall">,
  pin: { id: number },
  limit: RateLimit,
  now: number,
): Promise<WindowDecision> {
  const nthNewest = await pins.nthNewestVerifyCall(pin, limit.attempts, {
    windowStart: now - limit.windowMs,
    expiredBefore: now - MAX_DURATION_MS,
  });
  const decision = windowDecision(limit, nthNewest, now);
  if (decision.allowed) await pins.recordVerifyCall(pin, now);
  return decision;
}
