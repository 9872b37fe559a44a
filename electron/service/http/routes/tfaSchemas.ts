import { z } from "zod";
import { CALL_STATUSES, CHANNELS, NC_STATUSES, PIN_ERRORS, SMS_STATUSES } from "../../../../shared/tfa.ts";
import { tfaAnswerSchemas } from "../../../../shared/tfaSchemas.ts";
import {
  createApplicationSchema,
  createTemplateSchema,
  resendPinSchema,
  sendPinSchema,
  updateApplicationSchema,
  updateTemplateSchema,
  verifyPinSchema,
} from "../../tfa/schemas.ts";
import { apiDateTime, component } from "../routeSchemas.ts";

/** The requests and answers of the 2FA simulator and the PIN inbox, as the document's components. */

const attempts = z.number().int().min(0);

const input = { io: "input" } as const;
export const createApplicationRequest = component("CreateApplicationRequest", createApplicationSchema, input);
export const updateApplicationRequest = component("UpdateApplicationRequest", updateApplicationSchema, input);
export const createTemplateRequest = component("CreateMessageTemplateRequest", createTemplateSchema, input);
export const updateTemplateRequest = component("UpdateMessageTemplateRequest", updateTemplateSchema, input);
export const sendPinRequest = component("SendPinRequest", sendPinSchema, input);
export const resendPinRequest = component("ResendPinRequest", resendPinSchema, input);
export const verifyPinRequest = component("VerifyPinRequest", verifyPinSchema, input);

const answers = tfaAnswerSchemas(true);
component("ApplicationConfiguration", answers.configuration);
export const application = component("Application", answers.application);
export const applicationList = component("ApplicationList", z.array(application));

export const messageTemplate = component("MessageTemplate", answers.messageTemplate);
export const messageTemplateList = component("MessageTemplateList", z.array(messageTemplate));

export const smsPinResponse = component(
  "SmsPinResponse",
  z.strictObject({
    pinId: z.string(),
    to: z.string().meta({ description: "The number, digits only" }),
    ncStatus: z.enum(NC_STATUSES).optional().meta({ description: "Only when ncNeeded is not false" }),
    smsStatus: z.enum(SMS_STATUSES),
  }),
);
export const voicePinResponse = component(
  "VoicePinResponse",
  z.strictObject({ pinId: z.string(), to: z.string(), callStatus: z.enum(CALL_STATUSES) }),
);
export const pinVerification = component(
  "PinVerification",
  z.strictObject({
    pinId: z.string(),
    msisdn: z.string(),
    verified: z.boolean(),
    attemptsRemaining: attempts,
    pinError: z.enum(PIN_ERRORS).optional(),
  }),
);
export const verificationList = component(
  "VerificationList",
  z.strictObject({
    verifications: z.array(
      z.strictObject({
        msisdn: z.string(),
        verified: z.boolean(),
        verifiedAt: z
          .number()
          .int()
          .optional()
          .meta({ description: "Epoch milliseconds; absent until verified" }),
        sentAt: z.number().int().meta({ description: "Epoch milliseconds of the PIN's first send" }),
      }),
    ),
  }),
);

export const capturedPin = component(
  "CapturedPin",
  z.strictObject({
    pinId: z.string(),
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
    sentAt: apiDateTime,
    expiresAt: apiDateTime,
    attemptsRemaining: attempts,
    verified: z.boolean(),
    delivered: z.boolean().meta({
      description:
        "Whether the message reached the phone: false for the failure test numbers (447700900001, 447700900002), whose messages are listed too",
    }),
    status: z.enum([...new Set([...SMS_STATUSES, ...CALL_STATUSES])]).meta({
      description: "The status the send answered: the smsStatus, or the callStatus of a voice PIN",
    }),
  }),
);
export const pinState = component(
  "PinState",
  z.strictObject({
    pinId: z.string(),
    applicationId: z.string(),
    to: z.string(),
    attemptsRemaining: attempts,
    verified: z.boolean(),
  }),
  { description: "A PIN's state after a verification changed it" },
);
export const capturedPinList = component("CapturedPinList", z.strictObject({ pins: z.array(capturedPin) }));
