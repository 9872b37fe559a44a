import { z } from "zod";
import { nameProblems } from "../../../shared/apiKeys.ts";
import { PIN_PLACEHOLDER, PIN_TYPES, TEMPLATE_LANGUAGES } from "../../../shared/tfa.ts";
import { lenientBooleanQuery } from "../domain/queryBoolean.ts";
import { DURATION_HINT, parseDuration, parseRateLimit, RATE_LIMIT_HINT } from "./limits.ts";
import { MSISDN_HINT, NUMBER_PART_HINT, normalizeMsisdn, numberPartDigits } from "./phoneNumbers.ts";

/** Request schemas of the 2FA simulator; the rules behind them live beside this file. */

export const MAX_PIN_ATTEMPTS = 1000;
export const PIN_LENGTH_RANGE = { min: 1, max: 16 } as const;
export const MESSAGE_TEXT_MAX_LENGTH = 4096;
export const SENDER_MAX_LENGTH = 16;
export const LOCAL_PINS_MAX_LIMIT = 1000;

const typeError =
  (expected: string, nullMessage = `must be ${expected}`) =>
  (issue: { input?: unknown }) =>
    issue.input === undefined ? "is required" : issue.input === null ? nullMessage : `must be ${expected}`;

const BODY_OBJECT = { error: "the request body must be a JSON object" };

const checked = (expected: string, problemsOf: (value: string) => string[], nullMessage?: string) =>
  z.string({ error: typeError(expected, nullMessage) }).superRefine((value, ctx) => {
    for (const message of problemsOf(value)) ctx.addIssue({ code: "custom", message });
  });

const durationSchema = checked(`a duration (${DURATION_HINT})`, (value) => {
  const parsed = parseDuration(value);
  return parsed.ok ? [] : [parsed.problem];
});
const rateLimitSchema = checked(`a limit (${RATE_LIMIT_HINT})`, (value) => {
  const parsed = parseRateLimit(value);
  return parsed.ok ? [] : [parsed.problem];
});

const configurationSchema = z.strictObject(
  {
    pinAttempts: z
      .int({ error: typeError("a whole number") })
      .min(1, { error: "must be at least 1" })
      .max(MAX_PIN_ATTEMPTS, { error: `must be at most ${MAX_PIN_ATTEMPTS}` })
      .optional(),
    allowMultiplePinVerifications: z.boolean({ error: typeError("true or false") }).optional(),
    pinTimeToLive: durationSchema.optional(),
    verifyPinLimit: rateLimitSchema.optional(),
    sendPinPerApplicationLimit: rateLimitSchema.optional(),
    sendPinPerPhoneNumberLimit: rateLimitSchema.optional(),
  },
  { error: typeError("an object with the application's configuration") },
);

const applicationName = (nullMessage: string) => checked("a string", nameProblems, nullMessage);
const enabledSchema = z.boolean({ error: typeError("true or false") });
/** Fields the service assigns: a client may send them back, unchanged. */
const assignedField = z.string({ error: typeError("a string") });

export const createApplicationSchema = z.strictObject(
  {
    name: applicationName("is required"),
    enabled: enabledSchema.optional(),
    configuration: configurationSchema.optional(),
  },
  BODY_OBJECT,
);

export const updateApplicationSchema = z.strictObject(
  {
    name: applicationName("cannot be cleared").optional(),
    enabled: enabledSchema.optional(),
    configuration: configurationSchema.optional(),
    applicationId: assignedField.optional(),
  },
  BODY_OBJECT,
);

function messageTextProblems(text: string): string[] {
  const problems: string[] = [];
  if (!text.includes(PIN_PLACEHOLDER)) problems.push(`must contain the PIN placeholder ${PIN_PLACEHOLDER}`);
  if (text.length > MESSAGE_TEXT_MAX_LENGTH)
    problems.push(`must be at most ${MESSAGE_TEXT_MAX_LENGTH} characters`);
  if (!text.isWellFormed()) problems.push("must be valid Unicode text (it contains a lone surrogate)");
  return problems;
}

function senderProblems(sender: string): string[] {
  if (sender.trim().length === 0) return ["must not be blank"];
  if ([...sender].length > SENDER_MAX_LENGTH) return [`must be at most ${SENDER_MAX_LENGTH} characters`];
  if (/\p{Cc}/u.test(sender)) return ["must not contain control characters"];
  return [];
}

const senderSchema = checked("a string", senderProblems);
const messageTextSchema = (nullMessage: string) =>
  checked(`a string containing ${PIN_PLACEHOLDER}`, messageTextProblems, nullMessage);
const pinTypeSchema = (nullMessage: string) =>
  z.enum(PIN_TYPES, { error: typeError(`one of ${PIN_TYPES.join(", ")}`, nullMessage) });
const pinLengthSchema = z
  .int({ error: typeError("a whole number") })
  .min(PIN_LENGTH_RANGE.min, { error: `must be at least ${PIN_LENGTH_RANGE.min}` })
  .max(PIN_LENGTH_RANGE.max, { error: `must be at most ${PIN_LENGTH_RANGE.max}` });
const languageSchema = z.enum(TEMPLATE_LANGUAGES, {
  error: typeError(`one of ${TEMPLATE_LANGUAGES.join(", ")}`),
});
const repeatDtmfSchema = z
  .string({ error: typeError("a string of DTMF keys") })
  .regex(/^[0-9*#]{1,16}$/, { error: "must be 1 to 16 DTMF keys (0-9, * and #), for example 1#" });
const speechRateSchema = z
  .number({ error: typeError("a number from 0.5 to 2") })
  .min(0.5, { error: "must be at least 0.5" })
  .max(2, { error: "must be at most 2" });
const voiceNameSchema = checked("a string", (name) =>
  name.trim().length === 0
    ? ["must not be blank"]
    : name.length > 100
      ? ["must be at most 100 characters"]
      : [],
);
const dltField = (max: number) =>
  z.string({ error: typeError("a string") }).max(max, { error: `must be at most ${max} characters` });
const regionalSchema = z.strictObject(
  {
    indiaDlt: z
      .strictObject(
        {
          contentTemplateId: dltField(30).optional(),
          principalEntityId: dltField(30),
          teleMarketerId: dltField(255).optional(),
        },
        { error: typeError("an object") },
      )
      .optional(),
  },
  { error: typeError("an object") },
);

export const createTemplateSchema = z.strictObject(
  {
    messageText: messageTextSchema("is required"),
    pinType: pinTypeSchema("is required"),
    pinLength: pinLengthSchema.optional(),
    language: languageSchema.optional(),
    senderId: senderSchema.nullable().optional(),
    repeatDTMF: repeatDtmfSchema.nullable().optional(),
    speechRate: speechRateSchema.optional(),
    voiceName: voiceNameSchema.nullable().optional(),
    regional: regionalSchema.nullable().optional(),
  },
  BODY_OBJECT,
);

export const updateTemplateSchema = z.strictObject(
  {
    messageText: messageTextSchema("cannot be cleared").optional(),
    pinType: pinTypeSchema("cannot be cleared").optional(),
    pinLength: pinLengthSchema.optional(),
    language: languageSchema.optional(),
    senderId: senderSchema.nullable().optional(),
    repeatDTMF: repeatDtmfSchema.nullable().optional(),
    speechRate: speechRateSchema.optional(),
    voiceName: voiceNameSchema.nullable().optional(),
    regional: regionalSchema.nullable().optional(),
    messageId: assignedField.optional(),
    applicationId: assignedField.optional(),
    pinPlaceholder: assignedField.optional(),
  },
  BODY_OBJECT,
);

const msisdnSchema = checked(`a phone number (${MSISDN_HINT})`, (value) =>
  normalizeMsisdn(value) === null ? [`must be a phone number: ${MSISDN_HINT}`] : [],
);

const placeholdersSchema = z
  .record(z.string(), z.string({ error: "every value must be a string" }), {
    error: typeError('an object of names and string values, e.g. {"firstName":"John"}'),
  })
  .superRefine((placeholders, ctx) => {
    for (const name of Object.keys(placeholders)) {
      if (name === "pin")
        ctx.addIssue({ code: "custom", message: "must not set pin (the service fills {{pin}})" });
      else if (name.length === 0 || /[{}]/.test(name))
        ctx.addIssue({
          code: "custom",
          message: `has an invalid name ${JSON.stringify(name)}: names are non-empty, without curly brackets`,
        });
    }
  });

const idField = z.string({ error: typeError("a string") });

export const sendPinSchema = z.strictObject(
  {
    applicationId: idField,
    messageId: idField,
    from: senderSchema.optional(),
    to: msisdnSchema,
    placeholders: placeholdersSchema.optional(),
    trackDelivery: z.boolean({ error: typeError("true or false") }).optional(),
  },
  BODY_OBJECT,
);

export const resendPinSchema = z.strictObject(
  {
    placeholders: placeholdersSchema.optional(),
    trackDelivery: z.boolean({ error: typeError("true or false") }).optional(),
  },
  BODY_OBJECT,
);

export const verifyPinSchema = z.strictObject(
  {
    pin: z
      .string({ error: typeError("a string") })
      .min(1, { error: "must not be empty" })
      .max(64, { error: "must be at most 64 characters" }),
  },
  BODY_OBJECT,
);

export const sendPinQuerySchema = z.strictObject({ ncNeeded: lenientBooleanQuery });

export const verificationsQuerySchema = z.strictObject({
  msisdn: z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be given once") })
    .refine((value) => normalizeMsisdn(value) !== null, { error: `must be a phone number: ${MSISDN_HINT}` }),
  verified: lenientBooleanQuery,
  sent: lenientBooleanQuery,
});

export const localPinsQuerySchema = z.strictObject({
  to: z
    .string({ error: "must be given once" })
    .refine((value) => numberPartDigits(value) !== null, { error: `must be ${NUMBER_PART_HINT}` })
    .optional(),
  applicationId: z.string({ error: "must be given once" }).optional(),
  limit: z
    .string({ error: "must be given once" })
    .regex(/^\d{1,4}$/, { error: `must be a whole number from 1 to ${LOCAL_PINS_MAX_LIMIT}` })
    .refine((value) => Number(value) >= 1 && Number(value) <= LOCAL_PINS_MAX_LIMIT, {
      error: `must be a whole number from 1 to ${LOCAL_PINS_MAX_LIMIT}`,
    })
    .optional(),
});

export type CreateApplicationRequest = z.infer<typeof createApplicationSchema>;
export type UpdateApplicationRequest = z.infer<typeof updateApplicationSchema>;
export type ConfigurationRequest = z.infer<typeof configurationSchema>;
export type CreateTemplateRequest = z.infer<typeof createTemplateSchema>;
export type UpdateTemplateRequest = z.infer<typeof updateTemplateSchema>;
export type SendPinRequest = z.infer<typeof sendPinSchema>;
export type ResendPinRequest = z.infer<typeof resendPinSchema>;
