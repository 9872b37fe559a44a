import { z } from "zod";
import { answerFields } from "./answerFields.ts";
import { CALL_STATUSES, CHANNELS, NC_STATUSES, SMS_STATUSES } from "./tfaStatuses.ts";

/**
 * The PIN inbox's answers (`/local/1/pins` and its stream), one set of fields for both sides (see
 * answerFields.ts): the key service declares them strict, the HTTP client checks them lenient,
 * taking what older services leave out (delivered, status) and a status this client does not know.
 */
export function pinAnswerSchemas(strict: boolean) {
  const { object, promised, dateTime } = answerFields(strict);
  const attempts = promised(z.number().int().min(0), z.number());
  const status = z.enum([...new Set([...SMS_STATUSES, ...CALL_STATUSES])]).meta({
    description: "The status the send answered: the smsStatus, or the callStatus of a voice PIN",
  });

  const ncStatus = z.enum(NC_STATUSES).meta({
    description:
      "An SMS's Number Lookup answer for its number: NC_DESTINATION_NOT_REACHABLE for 447700900001, whose message is not sent; absent for a voice PIN",
  });

  const capturedPin = object({
    pinId: z.string(),
    accountKey: promised(
      z
        .string()
        .meta({ description: "The account the message was sent for: the caller's own or a sub-account's" }),
      z.string().optional(),
    ),
    applicationId: z.string(),
    applicationName: z
      .string()
      .optional()
      .meta({ description: "The application's name when the message was listed or sent" }),
    messageId: z.string(),
    to: z.string(),
    channel: z.enum(CHANNELS),
    pin: z.string(),
    text: z.string(),
    sentAt: dateTime,
    expiresAt: dateTime,
    attemptsRemaining: attempts,
    verified: z.boolean(),
    delivered: promised(
      z.boolean().meta({
        description:
          "Whether the message reached the phone: false for the failure test numbers (447700900001, 447700900002), whose messages are listed too",
      }),
      z.boolean().optional(),
    ),
    status: promised(status, status.optional().catch(undefined)),
    ncStatus: promised(ncStatus.optional(), ncStatus.optional().catch(undefined)),
  });

  const pinState = object({
    pinId: z.string(),
    applicationId: z.string(),
    to: z.string(),
    attemptsRemaining: attempts,
    verified: z.boolean(),
  });

  return { capturedPin, pinState, capturedPinList: object({ pins: z.array(capturedPin) }) };
}
