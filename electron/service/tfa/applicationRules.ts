import type { ValidationErrors } from "../../../shared/apiErrors.ts";
import type { ApplicationConfigurationDto, ApplicationDto, MessageTemplateDto } from "../../../shared/tfa.ts";
import { PIN_PLACEHOLDER } from "../../../shared/tfa.ts";
import {
  DEFAULT_CONFIGURATION,
  DEFAULT_LANGUAGE,
  DEFAULT_PIN_LENGTH,
  DEFAULT_SPEECH_RATE,
} from "../../../shared/tfaSchemas.ts";
import type {
  ApplicationFields,
  StoredApplication,
  StoredTemplate,
  TemplateFields,
} from "../domain/tfaRecords.ts";
import { parseDuration, parseRateLimit, type RateLimit } from "./limits.ts";
import type {
  CreateApplicationRequest,
  CreateTemplateRequest,
  UpdateApplicationRequest,
  UpdateTemplateRequest,
} from "./schemas.ts";

/** Applications and message templates: request data to stored fields (and back to the API shapes). */

// The defaults are shared with the renderer's forms, which show them before anything is sent.
/** @internal Exported for tests. */
export { DEFAULT_CONFIGURATION } from "../../../shared/tfaSchemas.ts";

export type RuleResult<T> = { ok: true; value: T } | { ok: false; errors: ValidationErrors };

function unchangedErrors(sent: Record<string, string | undefined>, stored: Record<string, string>) {
  const errors: ValidationErrors = {};
  for (const [field, value] of Object.entries(sent)) {
    if (value !== undefined && value !== stored[field]) {
      errors[field] = ["is assigned by the service and cannot be changed"];
    }
  }
  return errors;
}

function result<T>(value: T, errors: ValidationErrors): RuleResult<T> {
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value };
}

export function applicationForCreate(request: CreateApplicationRequest): ApplicationFields {
  return {
    name: request.name.trim(),
    enabled: request.enabled ?? true,
    configuration: { ...DEFAULT_CONFIGURATION, ...request.configuration },
  };
}

/** Sent fields replace stored ones (configuration field by field); absent fields are kept. */
export function applicationAfterUpdate(
  stored: StoredApplication,
  request: UpdateApplicationRequest,
): RuleResult<ApplicationFields> {
  const fields: ApplicationFields = {
    name: request.name === undefined ? stored.name : request.name.trim(),
    enabled: request.enabled ?? stored.enabled,
    configuration: { ...stored.configuration, ...request.configuration },
  };
  return result(
    fields,
    unchangedErrors({ applicationId: request.applicationId }, { applicationId: stored.applicationId }),
  );
}

export function templateForCreate(request: CreateTemplateRequest): TemplateFields {
  return {
    messageText: request.messageText,
    pinType: request.pinType,
    pinLength: request.pinLength ?? DEFAULT_PIN_LENGTH,
    language: request.language ?? DEFAULT_LANGUAGE,
    senderId: request.senderId ?? null,
    repeatDTMF: request.repeatDTMF ?? null,
    speechRate: request.speechRate ?? DEFAULT_SPEECH_RATE,
    voiceName: request.voiceName ?? null,
    regional: request.regional ?? null,
  };
}

/** Sent fields replace stored ones, absent ones are kept, null clears the optional ones. */
export function templateAfterUpdate(
  stored: StoredTemplate,
  request: UpdateTemplateRequest,
): RuleResult<TemplateFields> {
  const keep = <T>(sent: T | undefined, current: T): T => (sent === undefined ? current : sent);
  const fields: TemplateFields = {
    messageText: keep(request.messageText, stored.messageText),
    pinType: keep(request.pinType, stored.pinType),
    pinLength: keep(request.pinLength, stored.pinLength),
    language: keep(request.language, stored.language),
    senderId: keep(request.senderId, stored.senderId),
    repeatDTMF: keep(request.repeatDTMF, stored.repeatDTMF),
    speechRate: keep(request.speechRate, stored.speechRate),
    voiceName: keep(request.voiceName, stored.voiceName),
    regional: keep(request.regional, stored.regional),
  };
  const errors = unchangedErrors(
    {
      messageId: request.messageId,
      applicationId: request.applicationId,
      pinPlaceholder: request.pinPlaceholder,
    },
    { messageId: stored.messageId, applicationId: stored.applicationId, pinPlaceholder: PIN_PLACEHOLDER },
  );
  return result(fields, errors);
}

export function toApplicationDto(stored: StoredApplication): ApplicationDto {
  return {
    applicationId: stored.applicationId,
    name: stored.name,
    configuration: { ...stored.configuration },
    enabled: stored.enabled,
  };
}

export function toTemplateDto(stored: StoredTemplate): MessageTemplateDto {
  return {
    messageId: stored.messageId,
    applicationId: stored.applicationId,
    pinPlaceholder: PIN_PLACEHOLDER,
    messageText: stored.messageText,
    pinLength: stored.pinLength,
    pinType: stored.pinType,
    language: stored.language,
    ...(stored.senderId !== null && { senderId: stored.senderId }),
    ...(stored.repeatDTMF !== null && { repeatDTMF: stored.repeatDTMF }),
    speechRate: stored.speechRate,
    ...(stored.voiceName !== null && { voiceName: stored.voiceName }),
    ...(stored.regional !== null && { regional: stored.regional }),
  };
}

export interface ApplicationLimits {
  pinTimeToLiveMs: number;
  verifyPinLimit: RateLimit;
  sendPinPerApplicationLimit: RateLimit;
  sendPinPerPhoneNumberLimit: RateLimit;
}

function parsedOrThrow<T>(parsed: { ok: true; value: T } | { ok: false; problem: string }, field: string): T {
  if (!parsed.ok) throw new Error(`stored ${field} is invalid: ${parsed.problem}`);
  return parsed.value;
}

/** The stored (already validated) configuration strings, as numbers. */
export function limitsOf(configuration: ApplicationConfigurationDto): ApplicationLimits {
  return {
    pinTimeToLiveMs: parsedOrThrow(parseDuration(configuration.pinTimeToLive), "pinTimeToLive"),
    verifyPinLimit: parsedOrThrow(parseRateLimit(configuration.verifyPinLimit), "verifyPinLimit"),
    sendPinPerApplicationLimit: parsedOrThrow(
      parseRateLimit(configuration.sendPinPerApplicationLimit),
      "sendPinPerApplicationLimit",
    ),
    sendPinPerPhoneNumberLimit: parsedOrThrow(
      parseRateLimit(configuration.sendPinPerPhoneNumberLimit),
      "sendPinPerPhoneNumberLimit",
    ),
  };
}
