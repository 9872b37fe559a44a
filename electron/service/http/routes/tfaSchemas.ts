import { z } from "zod";
import { pinAnswerSchemas } from "../../../../shared/pinAnswers.ts";
import { tfaPinAnswerSchemas } from "../../../../shared/tfaPinAnswers.ts";
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

const sent = tfaPinAnswerSchemas(true);
export const smsPinResponse = component("SmsPinResponse", sent.smsPinResponse);
export const voicePinResponse = component("VoicePinResponse", sent.voicePinResponse);
export const pinVerification = component("PinVerification", sent.pinVerification);
export const verificationList = component("VerificationList", sent.verificationList);

const pins = pinAnswerSchemas(true);
export const capturedPin = component("CapturedPin", pins.capturedPin);
export const pinState = component("PinState", pins.pinState, {
  description: "A PIN's state after a verification changed it",
});
export const capturedPinList = component("CapturedPinList", pins.capturedPinList);
