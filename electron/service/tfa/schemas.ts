import { z } from "zod";
import { BODY_OBJECT, checked, senderSchema, typeError } from "../../../shared/tfaSchemas.ts";
import { lenientBooleanQuery, QUERY_BOOLEAN_SPELLINGS } from "../domain/queryBoolean.ts";
import { MSISDN_HINT, NUMBER_PART_HINT, normalizeMsisdn, numberPartDigits } from "./phoneNumbers.ts";

/**
 * Request schemas of the 2FA simulator; the rules behind them live beside this file. Those of
 * applications and templates are shared with the bridge and the renderer's forms
 * (shared/tfaSchemas.ts) and re-exported here.
 */

export {
  type CreateApplicationRequest,
  type CreateTemplateRequest,
  createApplicationSchema,
  createTemplateSchema,
  type UpdateApplicationRequest,
  type UpdateTemplateRequest,
  updateApplicationSchema,
  updateTemplateSchema,
} from "../../../shared/tfaSchemas.ts";

export const LOCAL_PINS_MAX_LIMIT = 1000;

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

/** A boolean query parameter as /openapi.json describes it: any value is accepted (queryBoolean.ts). */
const booleanQuery = (description: string) =>
  lenientBooleanQuery.meta({
    description: `${description}. Read as ${QUERY_BOOLEAN_SPELLINGS}; any other value (empty, undefined, ...) counts as absent`,
    examples: ["true", "false"],
  });

export const sendPinQuerySchema = z.strictObject({
  ncNeeded: booleanQuery("Number Lookup first (default true): answers ncStatus"),
});

export const verificationsQuerySchema = z.strictObject({
  msisdn: z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be given once") })
    .refine((value) => normalizeMsisdn(value) !== null, { error: `must be a phone number: ${MSISDN_HINT}` }),
  verified: booleanQuery("Only verified (true) or unverified (false) PINs"),
  sent: booleanQuery("Only PINs whose message was sent (true) or not (false)"),
});

export const localPinsQuerySchema = z.strictObject({
  to: z
    .string({ error: "must be given once" })
    .refine((value) => numberPartDigits(value) !== null, { error: `must be ${NUMBER_PART_HINT}` })
    .optional()
    .meta({
      description:
        "Only messages to numbers containing these digits: a whole number or a part of one, written with spaces, +, -, dots, slashes or brackets if wished (a search: 4179 and +41 79 find 41793026731)",
    }),
  applicationId: z
    .string({ error: "must be given once" })
    .optional()
    .meta({ description: "Only messages of this application" }),
  limit: z
    .string({ error: "must be given once" })
    .regex(/^\d{1,4}$/, { error: `must be a whole number from 1 to ${LOCAL_PINS_MAX_LIMIT}` })
    .refine((value) => Number(value) >= 1 && Number(value) <= LOCAL_PINS_MAX_LIMIT, {
      error: `must be a whole number from 1 to ${LOCAL_PINS_MAX_LIMIT}`,
    })
    .optional()
    .meta({
      description: `At most this many messages (1–${LOCAL_PINS_MAX_LIMIT}, default ${LOCAL_PINS_MAX_LIMIT})`,
    }),
});

export type SendPinRequest = z.output<typeof sendPinSchema>;
export type ResendPinRequest = z.output<typeof resendPinSchema>;
export type VerifyPinRequest = z.output<typeof verifyPinSchema>;
export type SendPinQuery = z.output<typeof sendPinQuerySchema>;
export type VerificationsQuery = z.output<typeof verificationsQuerySchema>;
export type LocalPinsQuery = z.output<typeof localPinsQuerySchema>;
