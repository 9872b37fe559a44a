/** The 2FA channels and send statuses, a leaf both tfa.ts and pinAnswers.ts import (no cycle). */

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
