import { timingSafeEqual } from "node:crypto";
import type { PinError, PinType } from "../../../shared/tfa.ts";

/** The rules of a sent PIN: plain functions from its state and the clock to a decision. */

export interface PinState {
  verified: boolean;
  attemptsRemaining: number;
  /** Epoch milliseconds; the PIN verifies only before this instant. */
  expiresAt: number;
}

export interface VerifyPolicy {
  allowMultiplePinVerifications: boolean;
}

export interface VerifyDecision {
  /** What the verify call answers. */
  verified: boolean;
  attemptsRemaining: number;
  pinError?: PinError;
  /** The state to store, when the call changes it. */
  next?: PinState & { verifiedAt?: number };
}

/**
 * One verification, rules in this order: a PIN already verified, when the application does not
 * allow verifying it again, answers NO_MORE_PIN_ATTEMPTS; no attempts left answers
 * NO_MORE_PIN_ATTEMPTS even for the right PIN; an expired PIN answers TTL_EXPIRED; the right PIN
 * verifies (attempts unchanged); a wrong one answers WRONG_PIN and uses one attempt.
 */
export function decideVerification(
  state: PinState,
  policy: VerifyPolicy,
  pinMatches: boolean,
  now: number,
): VerifyDecision {
  const { attemptsRemaining } = state;
  if (state.verified && !policy.allowMultiplePinVerifications) {
    return { verified: false, attemptsRemaining, pinError: "NO_MORE_PIN_ATTEMPTS" };
  }
  if (attemptsRemaining <= 0)
    return { verified: false, attemptsRemaining: 0, pinError: "NO_MORE_PIN_ATTEMPTS" };
  if (now >= state.expiresAt) return { verified: false, attemptsRemaining, pinError: "TTL_EXPIRED" };
  if (pinMatches) {
    if (state.verified) return { verified: true, attemptsRemaining };
    return { verified: true, attemptsRemaining, next: { ...state, verified: true, verifiedAt: now } };
  }
  const left = attemptsRemaining - 1;
  return {
    verified: false,
    attemptsRemaining: left,
    pinError: "WRONG_PIN",
    next: { ...state, attemptsRemaining: left },
  };
}

/**
 * The pinError PIN status reports: none once verified; NO_MORE_PIN_ATTEMPTS when no attempts are
 * left; TTL_EXPIRED once expired; none while the PIN can still be verified.
 */
export function statusPinError(state: PinState, now: number): PinError | undefined {
  if (state.verified) return undefined;
  if (state.attemptsRemaining <= 0) return "NO_MORE_PIN_ATTEMPTS";
  if (now >= state.expiresAt) return "TTL_EXPIRED";
  return undefined;
}

/** Why a PIN cannot be sent again (a resend repeats the same PIN and keeps its expiry), or undefined. */
export function resendRefusal(state: PinState, policy: VerifyPolicy, now: number): string | undefined {
  if (state.verified && !policy.allowMultiplePinVerifications) {
    return "the PIN is already verified and its application does not allow verifying it again; send a new PIN";
  }
  if (state.attemptsRemaining <= 0) return "the PIN has no verification attempts left; send a new PIN";
  if (now >= state.expiresAt)
    return "the PIN has expired (a resend does not extend its time to live); send a new PIN";
  return undefined;
}

/**
 * Whether the PIN typed matches the PIN sent: exact for NUMERIC, ignoring letter case for the
 * types with letters (ALPHA, HEX, ALPHANUMERIC). Constant-time for equal lengths.
 */
export function pinMatches(sent: string, typed: string, type: PinType): boolean {
  const normalize = (pin: string) => (type === "NUMERIC" ? pin : pin.toUpperCase());
  const a = Buffer.from(normalize(sent), "utf8");
  const b = Buffer.from(normalize(typed), "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}
