/** The 2FA channels, send statuses and verify errors, a leaf tfa.ts, pinAnswers.ts and tfaPinAnswers.ts import (no cycle). */

export const CHANNELS = ["SMS", "VOICE"] as const;
export type Channel = (typeof CHANNELS)[number];

/** Number Lookup's answer for a destination (SMS sends with `ncNeeded`, and the PIN inbox). */
export const NC_STATUSES = ["NC_DESTINATION_REACHABLE", "NC_DESTINATION_NOT_REACHABLE"] as const;
export type NcStatus = (typeof NC_STATUSES)[number];

export const SMS_STATUSES = ["MESSAGE_SENT", "MESSAGE_NOT_SENT"] as const;
export type SmsStatus = (typeof SMS_STATUSES)[number];
/** PENDING_ACCEPTED when the call is placed; the others only for the failing test numbers. */
export const CALL_STATUSES = [
  "PENDING_ACCEPTED",
  "REJECTED_DESTINATION",
  "UNDELIVERABLE_NOT_DELIVERED",
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

/** Why a verify failed (a verify answer's pinError). */
export const PIN_ERRORS = ["WRONG_PIN", "TTL_EXPIRED", "NO_MORE_PIN_ATTEMPTS"] as const;
export type PinError = (typeof PIN_ERRORS)[number];
