// What a captured PIN's row says, and when that changes by time alone: pure, for the inbox and tests.

import { parseApiDateTime } from "../../../../shared/datetime.ts";
import type { CapturedPinDto } from "../../../../shared/tfa.ts";

export interface PinState {
  label: string;
  /**
   * What the badge leaves out, on a line of its own: the provider's statuses of an undelivered
   * message, then what became of its PIN. Items, not one text, so that the line wraps between
   * them and never inside a status word ("NC_DESTINATION_NOT_REAC / HABLE").
   */
  detail?: { statuses: readonly string[]; state: string };
  color: string;
  /** Still usable: not verified, attempts left, not expired. */
  pending: boolean;
}

/**
 * The state of a captured PIN at `now` (epoch ms). A message a failure test number kept from the
 * phone says so first, and then what became of its PIN all the same (an app under test may still
 * verify it: the inbox must not hide a verification the service counted).
 */
export function pinState(pin: CapturedPinDto, now: number): PinState {
  const state = pinLifeState(pin, now);
  if (pin.delivered !== false) return state;
  // Number Lookup's refusal first: both failure numbers' SMS answer MESSAGE_NOT_SENT.
  const status = pin.status ?? "not sent";
  const statuses = pin.ncStatus === "NC_DESTINATION_NOT_REACHABLE" ? [pin.ncStatus, status] : [status];
  return {
    label: "Not delivered",
    detail: { statuses, state: state.label },
    color: "orange",
    pending: state.pending,
  };
}

/** Verified, out of attempts, expired, or pending with its attempts left. */
function pinLifeState(pin: CapturedPinDto, now: number): PinState {
  if (pin.verified) return { label: "Verified", color: "green", pending: false };
  if (pin.attemptsRemaining <= 0) return { label: "No attempts left", color: "red", pending: false };
  const expiresAt = parseApiDateTime(pin.expiresAt);
  if (expiresAt !== null && expiresAt <= now) return { label: "Expired", color: "gray", pending: false };
  const attempts = `${pin.attemptsRemaining} ${pin.attemptsRemaining === 1 ? "attempt" : "attempts"} left`;
  return { label: attempts, color: "blue", pending: true };
}

/**
 * The next instant after `now` at which a listed PIN turns "Expired" (the earliest expiry of the
 * PINs still pending), or null when none will: the inbox sets one timer for it, not an interval.
 */
export function nextPinExpiry(pins: readonly CapturedPinDto[], now: number): number | null {
  let next: number | null = null;
  for (const pin of pins) {
    if (!pinState(pin, now).pending) continue;
    const expiresAt = parseApiDateTime(pin.expiresAt);
    if (expiresAt !== null && expiresAt > now && (next === null || expiresAt < next)) next = expiresAt;
  }
  return next;
}
