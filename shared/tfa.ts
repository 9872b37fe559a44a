/**
 * The local 2FA simulator's resources as the key service answers them: the provider's 2FA v2
 * shapes, and the captured messages of the PIN inbox (`/local/1/pins` and its event stream).
 */
import type { z } from "zod";
import type { pinAnswerSchemas } from "./pinAnswers.ts";
import type { tfaPinAnswerSchemas } from "./tfaPinAnswers.ts";

export * from "./tfaStatuses.ts";

/** The PIN inbox's types come from its answer schemas; type-only, so zod stays out. */
type PinAnswers = ReturnType<typeof pinAnswerSchemas>;
/** So do the answers to sending and verifying a PIN. */
type PinSendAnswers = ReturnType<typeof tfaPinAnswerSchemas>;

export const PIN_TYPES = ["NUMERIC", "ALPHA", "HEX", "ALPHANUMERIC"] as const;
export type PinType = (typeof PIN_TYPES)[number];

/** Text-to-speech languages of message templates (the provider's list). */
export const TEMPLATE_LANGUAGES = [
  "en",
  "es",
  "ca",
  "da",
  "nl",
  "fr",
  "de",
  "it",
  "ja",
  "ko",
  "no",
  "pl",
  "ru",
  "sv",
  "fi",
  "hr",
  "sl",
  "ro",
  "pt_pt",
  "pt_br",
  "zh_cn",
  "zh_tw",
] as const;
export type TemplateLanguage = (typeof TEMPLATE_LANGUAGES)[number];

export const PIN_PLACEHOLDER = "{{pin}}";

export interface ApplicationConfigurationDto {
  pinAttempts: number;
  allowMultiplePinVerifications: boolean;
  pinTimeToLive: string;
  verifyPinLimit: string;
  sendPinPerApplicationLimit: string;
  sendPinPerPhoneNumberLimit: string;
}

export interface ApplicationDto {
  applicationId: string;
  name: string;
  configuration: ApplicationConfigurationDto;
  enabled: boolean;
}

interface IndiaDltDto {
  contentTemplateId?: string;
  principalEntityId: string;
  teleMarketerId?: string;
}

export interface RegionalDto {
  indiaDlt?: IndiaDltDto;
}

export interface MessageTemplateDto {
  messageId: string;
  applicationId: string;
  pinPlaceholder: string;
  messageText: string;
  pinLength: number;
  pinType: PinType;
  language: TemplateLanguage;
  /** Omitted when not set. */
  senderId?: string;
  repeatDTMF?: string;
  speechRate: number;
  voiceName?: string;
  regional?: RegionalDto;
}

/** Send or resend over SMS. ncStatus only when Number Lookup was asked for (`ncNeeded`, not on resend). */
export type SmsPinResponseDto = z.infer<PinSendAnswers["smsPinResponse"]>;
export type VoicePinResponseDto = z.infer<PinSendAnswers["voicePinResponse"]>;
/** Verify answer; pinError only when verified is false. PIN status has the same shape. */
export type PinVerificationDto = z.infer<PinSendAnswers["pinVerification"]>;
export type VerificationListDto = z.infer<PinSendAnswers["verificationList"]>;

/**
 * One message the simulator "sent" (send or resend), as the PIN inbox shows it. delivered and
 * status are absent from older services (delivered then counts as true).
 */
export type CapturedPinDto = z.infer<PinAnswers["capturedPin"]>;
export type CapturedPinListDto = z.infer<PinAnswers["capturedPinList"]>;
/** A PIN's state after a verification changed it (attempts used, or verified). */
export type PinStateDto = z.infer<PinAnswers["pinState"]>;

/** Server-sent event names on `/local/1/pins/stream`; `data` is the JSON of the DTO. */
export const PIN_STREAM_EVENTS = { captured: "pin", state: "pin-state" } as const;
