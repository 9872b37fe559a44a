import { z } from "zod";
import { ANY_ID_PATTERN, nameProblems } from "./apiKeys.ts";
import {
  type ApplicationConfigurationDto,
  PIN_PLACEHOLDER,
  PIN_TYPES,
  TEMPLATE_LANGUAGES,
  type TemplateLanguage,
} from "./tfa.ts";

/**
 * What a 2FA application or message template may be: the request schemas the key service checks
 * bodies with, the bridge checks arguments with, and the renderer's forms check fields with, so
 * the three cannot drift apart. Duration and limit parsing live here for the same reason.
 */

/**
 * The provider's time formats: a duration `{timeLength}{timeUnit}` (pinTimeToLive) and a rate
 * limit `{attempts}/{timeLength}{timeUnit}` (verifyPinLimit, sendPin...Limit). timeLength is
 * optional (default 1); units are ms, s, m, h, d. Durations must be positive and at most one year.
 */

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** 365 days: the longest time-to-live or limit window the provider allows. */
export const MAX_DURATION_MS = 365 * UNIT_MS.d;
/** The most attempts a rate limit may name. */
const MAX_LIMIT_ATTEMPTS = 1_000_000;

const DURATION_HINT =
  "a number and a unit (ms, s, m, h or d), for example 15m: the provider's {timeLength}{timeUnit}";
const RATE_LIMIT_HINT =
  "attempts, a slash, then a number and a unit (ms, s, m, h or d), for example 3/1d: the provider's " +
  "{attempts}/{timeLength}{timeUnit}";

const DURATION = /^(\d{1,12})?(ms|s|m|h|d)$/;
const RATE_LIMIT = /^(\d{1,12})\/(.*)$/;

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

export interface RateLimit {
  attempts: number;
  windowMs: number;
}

/** Milliseconds of a duration such as `15m`, `500ms` or `d`. */
export function parseDuration(text: string): Parsed<number> {
  const match = DURATION.exec(text);
  if (!match) return { ok: false, problem: `must be ${DURATION_HINT}` };
  const length = match[1] === undefined ? 1 : Number(match[1]);
  const ms = length * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (ms <= 0) return { ok: false, problem: "must be longer than zero" };
  if (ms > MAX_DURATION_MS) return { ok: false, problem: "must not exceed one year (365d)" };
  return { ok: true, value: ms };
}

/** Attempts and window of a limit such as `10000/1d` or `1/3s`. */
export function parseRateLimit(text: string): Parsed<RateLimit> {
  const match = RATE_LIMIT.exec(text);
  if (!match) return { ok: false, problem: `must be ${RATE_LIMIT_HINT}` };
  const attempts = Number(match[1]);
  if (attempts < 1) return { ok: false, problem: "must allow at least 1 attempt" };
  if (attempts > MAX_LIMIT_ATTEMPTS) {
    return { ok: false, problem: `must allow at most ${MAX_LIMIT_ATTEMPTS} attempts` };
  }
  const window = parseDuration(match[2] as string);
  if (!window.ok) {
    return { ok: false, problem: `has a time window that ${window.problem} (${RATE_LIMIT_HINT})` };
  }
  return { ok: true, value: { attempts, windowMs: window.value } };
}

/** What the service stores for what a create request leaves out. */
export const DEFAULT_CONFIGURATION: Readonly<ApplicationConfigurationDto> = {
  pinAttempts: 10,
  allowMultiplePinVerifications: true,
  pinTimeToLive: "15m",
  verifyPinLimit: "1/3s",
  sendPinPerApplicationLimit: "10000/1d",
  sendPinPerPhoneNumberLimit: "3/1d",
};
export const DEFAULT_PIN_LENGTH = 4;
export const DEFAULT_LANGUAGE: TemplateLanguage = "en";
export const DEFAULT_SPEECH_RATE = 1;

export const MAX_PIN_ATTEMPTS = 1000;
export const PIN_LENGTH_RANGE = { min: 1, max: 16 } as const;
const MESSAGE_TEXT_MAX_LENGTH = 4096;
export const SENDER_MAX_LENGTH = 16;

export const typeError =
  (expected: string, nullMessage = `must be ${expected}`) =>
  (issue: { input?: unknown }) =>
    issue.input === undefined ? "is required" : issue.input === null ? nullMessage : `must be ${expected}`;

export const BODY_OBJECT = { error: "the request body must be a JSON object" };

export const checked = (expected: string, problemsOf: (value: string) => string[], nullMessage?: string) =>
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

export const senderSchema = checked("a string", senderProblems);
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

export type CreateApplicationRequest = z.infer<typeof createApplicationSchema>;
export type UpdateApplicationRequest = z.infer<typeof updateApplicationSchema>;
export type CreateTemplateRequest = z.infer<typeof createTemplateSchema>;
export type UpdateTemplateRequest = z.infer<typeof updateTemplateSchema>;

/**
 * The answers of the 2FA API's applications and message templates, one set of fields for both
 * sides: the key service declares them strict (its document says these fields and no others), the
 * HTTP client checks a service's answers with them lenient (a newer service may add a field).
 */
export function tfaAnswerSchemas(strict: boolean) {
  const object = <Shape extends z.ZodRawShape>(shape: Shape) =>
    (strict ? z.strictObject(shape) : z.object(shape)) as z.ZodObject<Shape>;
  const assignedId = z.string().regex(ANY_ID_PATTERN);
  const durationText = `a duration: ${DURATION_HINT}; at most one year`;
  const limitText = `a limit: ${RATE_LIMIT_HINT}`;
  const configuration = object({
    pinAttempts: z.number().int().min(1).meta({ default: DEFAULT_CONFIGURATION.pinAttempts }),
    allowMultiplePinVerifications: z
      .boolean()
      .meta({ default: DEFAULT_CONFIGURATION.allowMultiplePinVerifications }),
    pinTimeToLive: z
      .string()
      .meta({ default: DEFAULT_CONFIGURATION.pinTimeToLive, description: durationText }),
    verifyPinLimit: z
      .string()
      .meta({ default: DEFAULT_CONFIGURATION.verifyPinLimit, description: `Per PIN: ${limitText}` }),
    sendPinPerApplicationLimit: z
      .string()
      .meta({ default: DEFAULT_CONFIGURATION.sendPinPerApplicationLimit, description: limitText }),
    sendPinPerPhoneNumberLimit: z.string().meta({
      default: DEFAULT_CONFIGURATION.sendPinPerPhoneNumberLimit,
      description: `Per number: ${limitText}`,
    }),
  });
  const application = object({
    applicationId: assignedId,
    name: z.string(),
    configuration,
    enabled: z.boolean(),
  });
  const messageTemplate = object({
    messageId: assignedId,
    applicationId: assignedId,
    pinPlaceholder: z.literal(PIN_PLACEHOLDER),
    messageText: z.string(),
    pinLength: z.number().int(),
    pinType: z.enum(PIN_TYPES),
    language: z.enum(TEMPLATE_LANGUAGES),
    senderId: z.string().optional(),
    repeatDTMF: z.string().optional(),
    speechRate: z.number(),
    voiceName: z.string().optional(),
    regional: object({
      indiaDlt: object({
        contentTemplateId: z.string().optional(),
        principalEntityId: z.string(),
        teleMarketerId: z.string().optional(),
      }).optional(),
    }).optional(),
  });
  return { configuration, application, messageTemplate };
}
