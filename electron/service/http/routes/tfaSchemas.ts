import { z } from "zod";
import { pinAnswerSchemas } from "../../../../shared/pinAnswers.ts";
import { CALL_STATUSES, NC_STATUSES, PIN_ERRORS, SMS_STATUSES } from "../../../../shared/tfa.ts";
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
import { component } from "../routeSchemas.ts";

/** The requests and answers of the 2FA simulator and the PIN inbox, as the document's components. */

const attempts = z.number().int().min(0);

export const createApplicationRequest = component("CreateApplicationRequest", createApplicationSchema);
export const updateApplicationRequest = component("UpdateApplicationRequest", updateApplicationSchema);
export const createTemplateRequest = component("CreateMessageTemplateRequest", createTemplateSchema);
export const updateTemplateRequest = component("UpdateMessageTemplateRequest", updateTemplateSchema);
export const sendPinRequest = component("SendPinRequest", sendPinSchema);
export const resendPinRequest = component("ResendPinRequest", resendPinSchema);
export const verifyPinRequest = component("VerifyPinRequest", verifyPinSchema);

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

const pins = pinAnswerSchemas(true);
export const capturedPin = component("CapturedPin", pins.capturedPin);
export const pinState = component("PinState", pins.pinState, {
  description: "A PIN's state after a verification changed it",
});
export const capturedPinList = component("CapturedPinList", pins.capturedPinList);
