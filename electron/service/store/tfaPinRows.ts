import type { ApplicationConfigurationDto, Channel } from "../../../shared/tfa.ts";
import type { SecretBox } from "../crypto/secretBox.ts";
import type {
  CapturedMessage,
  PinRecord,
  PinStatus,
  PinVerification,
  TemplateFields,
} from "../domain/tfaRecords.ts";

// Sent PINs and their messages: rows and codecs the same on SQLite (tfaPinStore.ts) and PostgreSQL
// (postgres/postgresTfaPins.ts). No SQL dialect and no connection here, so neither store imports
// the other's code.

// Rows as SQLite (flags 0/1) or PostgreSQL (booleans) returns them; the functions below turn
// them into the domain's values on both, with the same unsealing.

export interface StatusRowRaw {
  pin_id: string;
  account_id: number;
  msisdn: string;
  verified: number | boolean;
  attempts_remaining: number;
  expires_at: number;
}

export interface RecordRowRaw extends StatusRowRaw {
  id: number;
  application_ref: number;
  application_id: string;
  enabled: number | boolean;
  configuration: string;
  template_ref: number;
  message_id: string;
  fields: string;
  pin_sealed: Buffer;
}

export interface CapturedRowRaw {
  send_id: number;
  account_key: string;
  pin_id: string;
  application_id: string;
  application_name: string;
  message_id: string;
  msisdn: string;
  channel: Channel;
  pin_sealed: Buffer;
  text_sealed: Buffer;
  sent_at: number;
  expires_at: number;
  attempts_remaining: number;
  verified: number | boolean;
}

export interface VerificationRowRaw {
  msisdn: string;
  verified: number | boolean;
  verified_at: number | null;
  created_at: number;
}

const flag = (value: number | boolean) => value === true || value === 1;

// Plain SQL both databases read the same way (no parameters in them).
export const STATUS_COLUMNS = "pin_id, account_id, msisdn, verified, attempts_remaining, expires_at";
export const RECORD_SELECT = `SELECT p.id, p.pin_id, p.account_id, p.msisdn, p.verified, p.attempts_remaining,
  p.expires_at, p.pin_sealed, p.application_ref, a.application_id, a.enabled, a.configuration, p.template_ref,
  t.message_id, t.fields
  FROM tfa_pins p JOIN tfa_applications a ON a.id = p.application_ref JOIN tfa_templates t ON t.id = p.template_ref`;
export const CAPTURED_SELECT = `SELECT s.id AS send_id, acc.account_key, p.pin_id, a.application_id, a.name AS application_name,
  t.message_id, s.msisdn, s.channel, p.pin_sealed, s.text_sealed, s.sent_at, p.expires_at, p.attempts_remaining,
  p.verified
  FROM tfa_sends s JOIN tfa_pins p ON p.id = s.pin_ref
  JOIN tfa_applications a ON a.id = s.application_ref JOIN tfa_templates t ON t.id = p.template_ref
  JOIN accounts acc ON acc.id = s.account_id`;

export const statusOf = (row: StatusRowRaw): PinStatus => ({
  pinId: row.pin_id,
  accountId: row.account_id,
  msisdn: row.msisdn,
  verified: flag(row.verified),
  attemptsRemaining: row.attempts_remaining,
  expiresAt: row.expires_at,
});

/** The PIN as stored: sealed, bound to its pinId. */
export const sealPin = (box: SecretBox, pin: string, pinId: string): Buffer => box.encrypt(pin, pinId);

/** A message's text as stored: sealed, bound to its PIN's pinId; null when nothing was delivered. */
export const sealText = (box: SecretBox, text: string | null, pinId: string): Buffer | null =>
  text === null ? null : box.encrypt(text, pinId);

export function recordOf(box: SecretBox, row: RecordRowRaw): PinRecord {
  return {
    ...statusOf(row),
    id: row.id,
    applicationRef: row.application_ref,
    applicationId: row.application_id,
    applicationEnabled: flag(row.enabled),
    configuration: JSON.parse(row.configuration) as ApplicationConfigurationDto,
    templateRef: row.template_ref,
    messageId: row.message_id,
    template: JSON.parse(row.fields) as TemplateFields,
    pin: box.decrypt(row.pin_sealed, row.pin_id),
  };
}

export const verificationOf = (row: VerificationRowRaw): PinVerification => ({
  msisdn: row.msisdn,
  verified: flag(row.verified),
  verifiedAt: row.verified_at,
  sentAt: row.created_at,
});

export function capturedOf(box: SecretBox, row: CapturedRowRaw): CapturedMessage {
  return {
    sendId: row.send_id,
    accountKey: row.account_key,
    pinId: row.pin_id,
    applicationId: row.application_id,
    applicationName: row.application_name,
    messageId: row.message_id,
    msisdn: row.msisdn,
    channel: row.channel,
    pin: box.decrypt(row.pin_sealed, row.pin_id),
    text: box.decrypt(row.text_sealed, row.pin_id),
    sentAt: row.sent_at,
    expiresAt: row.expires_at,
    attemptsRemaining: row.attempts_remaining,
    verified: flag(row.verified),
  };
}

/**
 * Verify calls older than any window a limit can have count for nothing: each read of a PIN's
 * calls deletes at most this many of them, oldest first, whatever their PIN.
 */
export const VERIFY_CALL_PURGE_BATCH = 100;
