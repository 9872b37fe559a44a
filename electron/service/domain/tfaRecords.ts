import type {
  ApplicationConfigurationDto,
  Channel,
  PinType,
  RegionalDto,
  TemplateLanguage,
} from "../../../shared/tfa.ts";

/**
 * The 2FA records as the service works with them, whatever the database: applications, message
 * templates, sent PINs and their messages (tfa/ makes them from requests and answers them; the
 * store keeps them, PINs and texts sealed).
 */

/** A 2FA application as stored (tfa/applicationRules.ts makes it from requests and answers it). */
export interface ApplicationFields {
  name: string;
  enabled: boolean;
  configuration: ApplicationConfigurationDto;
}

export interface StoredApplication extends ApplicationFields {
  id: number;
  applicationId: string;
  accountId: number;
}

/** A message template as stored (tfa/applicationRules.ts makes it from requests and answers it). */
export interface TemplateFields {
  messageText: string;
  pinType: PinType;
  pinLength: number;
  language: TemplateLanguage;
  senderId: string | null;
  repeatDTMF: string | null;
  speechRate: number;
  voiceName: string | null;
  regional: RegionalDto | null;
}

export interface StoredTemplate extends TemplateFields {
  id: number;
  messageId: string;
  applicationRef: number;
  applicationId: string;
}

/** What PIN status needs: one lookup by pinId, nothing to decrypt. */
export interface PinStatus {
  pinId: string;
  accountId: number;
  msisdn: string;
  verified: boolean;
  attemptsRemaining: number;
  expiresAt: number;
}

/** A PIN with what verify and resend need from its application and template. */
export interface PinRecord extends PinStatus {
  id: number;
  applicationRef: number;
  applicationId: string;
  applicationEnabled: boolean;
  configuration: ApplicationConfigurationDto;
  templateRef: number;
  messageId: string;
  template: TemplateFields;
  pin: string;
}

export interface NewPin {
  pinId: string;
  accountId: number;
  applicationRef: number;
  templateRef: number;
  msisdn: string;
  pin: string;
  sent: boolean;
  createdAt: number;
  expiresAt: number;
  attemptsRemaining: number;
}

export interface NewSend {
  pinRef: number;
  pinId: string;
  accountId: number;
  applicationRef: number;
  msisdn: string;
  channel: Channel;
  /** null when the message was not delivered (a failing test number): nothing is captured. */
  text: string | null;
  sentAt: number;
}

/** A PIN as the application's verifications list shows it. */
export interface PinVerification {
  msisdn: string;
  verified: boolean;
  verifiedAt: number | null;
  sentAt: number;
}

/** One captured message with the current state of its PIN. */
export interface CapturedMessage {
  /** The message's row id: newer messages have larger ones. */
  sendId: number;
  /** The account the message was sent for (the app's key's account). */
  accountKey: string;
  pinId: string;
  applicationId: string;
  applicationName: string;
  messageId: string;
  msisdn: string;
  channel: Channel;
  pin: string;
  text: string;
  sentAt: number;
  expiresAt: number;
  attemptsRemaining: number;
  verified: boolean;
}

/** Which captured messages a reader asks for (the accounts it may see, newest first). */
export interface CapturedFilter {
  accountIds: readonly number[];
  /** Digits the number contains somewhere (a search: part of a number finds it). */
  toDigits?: string;
  applicationId?: string;
  limit: number;
  /** Only messages older than this row id (the sendId of the last one already read). */
  before?: number;
}
