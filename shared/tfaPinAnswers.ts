import { z } from "zod";
import { answerFields } from "./answerFields.ts";
import { CALL_STATUSES, NC_STATUSES, PIN_ERRORS, SMS_STATUSES } from "./tfaStatuses.ts";

/**
 * The 2FA API's answers to sending, verifying and asking after a PIN (`/2fa/2/pin...`, the
 * provider's shapes), one set of fields for both sides (see answerFields.ts): the key service
 * declares them strict, an HTTP client checks them lenient.
 */
export function tfaPinAnswerSchemas(strict: boolean) {
  const { object, promised } = answerFields(strict);
  const attempts = promised(z.number().int().min(0), z.number());
  const epochMs = promised(z.number().int(), z.number());

  /** Send or resend over SMS. */
  const smsPinResponse = object({
    pinId: z.string(),
    to: z.string().meta({ description: "The number, digits only" }),
    ncStatus: z.enum(NC_STATUSES).optional().meta({ description: "Only when ncNeeded is not false" }),
    smsStatus: z.enum(SMS_STATUSES),
  });

  const voicePinResponse = object({ pinId: z.string(), to: z.string(), callStatus: z.enum(CALL_STATUSES) });

  /** A verify's answer, and a PIN's status (the same shape); pinError only when verified is false. */
  const pinVerification = object({
    pinId: z.string(),
    msisdn: z.string(),
    verified: z.boolean(),
    attemptsRemaining: attempts,
    pinError: z.enum(PIN_ERRORS).optional(),
  });

  const verificationList = object({
    verifications: z.array(
      object({
        msisdn: z.string(),
        verified: z.boolean(),
        verifiedAt: epochMs.optional().meta({ description: "Epoch milliseconds; absent until verified" }),
        sentAt: epochMs.meta({ description: "Epoch milliseconds of the PIN's first send" }),
      }),
    ),
  });

  return { smsPinResponse, voicePinResponse, pinVerification, verificationList };
}
