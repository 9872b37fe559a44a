import type { CapturedPinDto } from "../../../../../shared/tfa.ts";

/** A captured PIN as the inbox lists it: SMS, ten attempts left, not verified, 15 minutes valid. */
export function capturedPin(pinId: string): CapturedPinDto {
  return {
    pinId,
    applicationId: "A".repeat(32),
    messageId: "B".repeat(32),
    to: "41793026727",
    channel: "SMS",
    pin: "123456",
    text: "Your code is 123456",
    sentAt: "2026-06-15T12:00:00.000+0000",
    expiresAt: "2026-06-15T12:15:00.000+0000",
    attemptsRemaining: 10,
    verified: false,
  };
}
