import type { z } from "zod";
import type { ValidationErrors } from "../../../../shared/apiErrors.ts";
import type {
  ApplicationDto,
  MessageTemplateDto,
  PinType,
  TemplateLanguage,
} from "../../../../shared/tfa.ts";
import {
  type CreateApplicationRequest,
  type CreateTemplateRequest,
  createApplicationSchema,
  createTemplateSchema,
  DEFAULT_CONFIGURATION,
  DEFAULT_LANGUAGE,
  DEFAULT_PIN_LENGTH,
  DEFAULT_SPEECH_RATE,
  type UpdateTemplateRequest,
  updateApplicationSchema,
  updateTemplateSchema,
} from "../../../../shared/tfaSchemas.ts";

/**
 * The 2FA forms' values to requests and back, and their field errors, checked with the very
 * schemas the bridge and the service check (shared/tfaSchemas.ts): a form cannot accept what the
 * service refuses, nor refuse what it accepts. Plain functions, no React.
 */

/** A number field's value: NumberInput gives "" while it is empty. */
type NumberField = number | string;

export interface ApplicationFormValues {
  name: string;
  enabled: boolean;
  pinAttempts: NumberField;
  allowMultiplePinVerifications: boolean;
  pinTimeToLive: string;
  verifyPinLimit: string;
  sendPinPerApplicationLimit: string;
  sendPinPerPhoneNumberLimit: string;
}

export interface TemplateFormValues {
  messageText: string;
  pinType: PinType;
  pinLength: NumberField;
  language: TemplateLanguage;
  senderId: string;
  repeatDTMF: string;
  speechRate: NumberField;
  voiceName: string;
  /** India DLT registration (regional.indiaDlt): all empty means none. */
  dltPrincipalEntityId: string;
  dltContentTemplateId: string;
  dltTeleMarketerId: string;
}

/** The form of an application: its fields, or the service's defaults for a new one. */
export function applicationFormValues(application?: ApplicationDto): ApplicationFormValues {
  return {
    name: application?.name ?? "",
    enabled: application?.enabled ?? true,
    ...(application?.configuration ?? DEFAULT_CONFIGURATION),
  };
}

/** An empty number field stays "" so that the schema says it is required, not a silent 0. */
const numberOf = (value: NumberField): number | string =>
  typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : value;

/** The request of a form: create and update send every field (PUT replaces the ones sent). */
export function applicationRequestOf(values: ApplicationFormValues): CreateApplicationRequest {
  return {
    name: values.name,
    enabled: values.enabled,
    configuration: {
      pinAttempts: numberOf(values.pinAttempts) as number,
      allowMultiplePinVerifications: values.allowMultiplePinVerifications,
      pinTimeToLive: values.pinTimeToLive.trim(),
      verifyPinLimit: values.verifyPinLimit.trim(),
      sendPinPerApplicationLimit: values.sendPinPerApplicationLimit.trim(),
      sendPinPerPhoneNumberLimit: values.sendPinPerPhoneNumberLimit.trim(),
    },
  };
}

export function templateFormValues(template?: MessageTemplateDto): TemplateFormValues {
  return {
    messageText: template?.messageText ?? "Your verification code is {{pin}}",
    pinType: template?.pinType ?? "NUMERIC",
    pinLength: template?.pinLength ?? DEFAULT_PIN_LENGTH,
    language: template?.language ?? DEFAULT_LANGUAGE,
    senderId: template?.senderId ?? "",
    repeatDTMF: template?.repeatDTMF ?? "",
    speechRate: template?.speechRate ?? DEFAULT_SPEECH_RATE,
    voiceName: template?.voiceName ?? "",
    dltPrincipalEntityId: template?.regional?.indiaDlt?.principalEntityId ?? "",
    dltContentTemplateId: template?.regional?.indiaDlt?.contentTemplateId ?? "",
    dltTeleMarketerId: template?.regional?.indiaDlt?.teleMarketerId ?? "",
  };
}

/** The India DLT fields as the API's `regional`, or undefined when all are empty. */
function regionalOf(values: TemplateFormValues): UpdateTemplateRequest["regional"] {
  const principalEntityId = values.dltPrincipalEntityId.trim();
  const contentTemplateId = values.dltContentTemplateId.trim();
  const teleMarketerId = values.dltTeleMarketerId.trim();
  if (principalEntityId === "" && contentTemplateId === "" && teleMarketerId === "") return undefined;
  return {
    indiaDlt: {
      principalEntityId,
      ...(contentTemplateId !== "" && { contentTemplateId }),
      ...(teleMarketerId !== "" && { teleMarketerId }),
    },
  };
}

/**
 * The request of a template form. An optional text left empty is left out of a new template and
 * cleared (null) on an existing one, so emptying the sender field removes the sender.
 */
export function templateRequestOf(values: TemplateFormValues, mode: "create"): CreateTemplateRequest;
export function templateRequestOf(values: TemplateFormValues, mode: "update"): UpdateTemplateRequest;
export function templateRequestOf(
  values: TemplateFormValues,
  mode: "create" | "update",
): CreateTemplateRequest | UpdateTemplateRequest {
  const optional = (text: string) => (text.trim() === "" ? (mode === "update" ? null : undefined) : text);
  const request: UpdateTemplateRequest = {
    messageText: values.messageText,
    pinType: values.pinType,
    pinLength: numberOf(values.pinLength) as number,
    language: values.language,
    senderId: optional(values.senderId),
    repeatDTMF: optional(values.repeatDTMF),
    speechRate: numberOf(values.speechRate) as number,
    voiceName: optional(values.voiceName),
    regional: regionalOf(values) ?? (mode === "update" ? null : undefined),
  };
  for (const [field, value] of Object.entries(request)) {
    if (value === undefined) delete request[field as keyof UpdateTemplateRequest];
  }
  return request;
}

/** A field of the API's request (`configuration.pinAttempts`) as the form names it (`pinAttempts`). */
function formFieldOf(apiField: string): string {
  if (apiField.startsWith("configuration.")) return apiField.slice("configuration.".length);
  const dlt = /^regional\.indiaDlt\.(\w)(\w*)$/.exec(apiField);
  return dlt ? `dlt${dlt[1]?.toUpperCase()}${dlt[2]}` : apiField;
}

/** Per-field messages (the bridge's or the service's validationErrors) as the form's errors. */
export function formErrorsOf(validationErrors: ValidationErrors): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const [field, messages] of Object.entries(validationErrors)) {
    const name = formFieldOf(field);
    errors[name] = [errors[name], ...messages].filter(Boolean).join("; ");
  }
  return errors;
}

function schemaErrors(schema: z.ZodType, request: unknown): Record<string, string> {
  const parsed = schema.safeParse(request);
  if (parsed.success) return {};
  const errors: ValidationErrors = {};
  for (const issue of parsed.error.issues) {
    const field = issue.path.map(String).join(".") || "form";
    errors[field] = [...(errors[field] ?? []), issue.message];
  }
  return formErrorsOf(errors);
}

/** What the service would refuse in this application form, by field (empty when it is fine). */
export function applicationFormErrors(
  values: ApplicationFormValues,
  mode: "create" | "update",
): Record<string, string> {
  return schemaErrors(
    mode === "create" ? createApplicationSchema : updateApplicationSchema,
    applicationRequestOf(values),
  );
}

/** What the service would refuse in this template form, by field (empty when it is fine). */
export function templateFormErrors(
  values: TemplateFormValues,
  mode: "create" | "update",
): Record<string, string> {
  return mode === "create"
    ? schemaErrors(createTemplateSchema, templateRequestOf(values, "create"))
    : schemaErrors(updateTemplateSchema, templateRequestOf(values, "update"));
}
