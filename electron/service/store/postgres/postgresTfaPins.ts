import type { SecretBox } from "../../crypto/secretBox.ts";
import type { PinEventNote, TfaPinWrites } from "../store.ts";
import {
  CAPTURED_SELECT,
  type CapturedRowRaw,
  capturedOf,
  RECORD_SELECT,
  type RecordRowRaw,
  recordOf,
  STATUS_COLUMNS,
  type StatusRowRaw,
  sealPin,
  sealText,
  statusOf,
  VERIFY_CALL_PURGE_BATCH,
  type VerificationRowRaw,
  verificationOf,
} from "../tfaPinRows.ts";
import { advisoryLockKey, type Sql } from "./sql.ts";

/**
 * The advisory lock key of one application's sends: a 64-bit hash, the same on every replica, in
 * a namespace of its own (the idempotency and schema locks are others).
 */
function sendLockOf(applicationRef: number): string {
  return advisoryLockKey(`keydesk/tfa-sends/${applicationRef}`);
}

/**
 * Sent PINs and their messages on PostgreSQL, sealed and read back by the same functions as on
 * SQLite (tfaPinStore.ts). What makes them hold across replicas:
 * - the send limits' reads first take a transaction-level advisory lock on the application, held
 *   to the commit: a send through another replica waits there until this one's insert committed,
 *   and its reads (READ COMMITTED: a new snapshot per statement) then count it;
 * - an attempt is spent and a PIN verified by UPDATEs whose WHERE is checked again on the row as
 *   the concurrent writer left it, so each attempt goes to exactly one call.
 * `changed` is told the pinId of every PIN whose state (attempts, verified) a write changed, and
 * `pinEvent` what the PIN inbox's other replicas are told (a message captured, a state changed).
 */
export function postgresTfaPins(
  sql: Sql,
  box: SecretBox,
  changed: (pinId: string) => void,
  pinEvent: (note: PinEventNote) => void = () => {},
): TfaPinWrites {
  const lockSends = (applicationRef: number) =>
    sql.rows("SELECT pg_advisory_xact_lock($1)", [sendLockOf(applicationRef)]);
  // What a state change answers, and its event's ids (the applicationId: the event names it).
  const STATE_RETURNING = `RETURNING attempts_remaining, verified, account_id,
    (SELECT application_id FROM tfa_applications a WHERE a.id = tfa_pins.application_ref) AS application_id`;
  type StateRow = {
    attempts_remaining: number;
    verified: boolean;
    account_id: number;
    application_id: string;
  };
  const stateChanged = (pinId: string, row: StateRow) => {
    changed(pinId);
    pinEvent({
      type: "state",
      accountId: row.account_id,
      pinId,
      applicationId: row.application_id,
      attemptsRemaining: row.attempts_remaining,
      verified: row.verified,
    });
  };
  /** A message with a text is a captured one (the failing test numbers' have none). */
  const sent = (send: { accountId: number; text: string | null }, sendId: number) => {
    if (send.text !== null) pinEvent({ type: "captured", accountId: send.accountId, sendId });
  };
  const sentAt = async (text: string, values: unknown[]) =>
    (await sql.rows<{ sent_at: number }>(text, values))[0]?.sent_at;
  return {
    async status(pinId) {
      const [row] = await sql.rows<StatusRowRaw>(`SELECT ${STATUS_COLUMNS} FROM tfa_pins WHERE pin_id = $1`, [
        pinId,
      ]);
      return row && statusOf(row);
    },
    async record(pinId) {
      const [row] = await sql.rows<RecordRowRaw>(`${RECORD_SELECT} WHERE p.pin_id = $1`, [pinId]);
      return row && recordOf(box, row);
    },
    async verifications(applicationRef, msisdn, filter) {
      const where = ["application_ref = $1", "msisdn = $2"];
      const values: unknown[] = [applicationRef, msisdn];
      if (filter.verified !== undefined) {
        values.push(filter.verified);
        where.push(`verified = $${values.length}`);
      }
      if (filter.sent !== undefined) {
        values.push(filter.sent);
        where.push(`sent = $${values.length}`);
      }
      const rows = await sql.rows<VerificationRowRaw>(
        `SELECT msisdn, verified, verified_at, created_at FROM tfa_pins WHERE ${where.join(" AND ")} ORDER BY id DESC`,
        values,
      );
      return rows.map(verificationOf);
    },
    async captured(filter) {
      const values: unknown[] = [filter.accountIds];
      const where = ["s.text_sealed IS NOT NULL", "s.account_id = ANY($1::bigint[])"];
      if (filter.toDigits !== undefined) {
        values.push(filter.toDigits);
        where.push(`strpos(s.msisdn, $${values.length}) > 0`);
      }
      if (filter.applicationId !== undefined) {
        values.push(filter.applicationId);
        where.push(`a.application_id = $${values.length}`);
      }
      if (filter.before !== undefined) {
        values.push(filter.before);
        where.push(`s.id < $${values.length}`);
      }
      values.push(filter.limit);
      const rows = await sql.rows<CapturedRowRaw>(
        `${CAPTURED_SELECT} WHERE ${where.join(" AND ")} ORDER BY s.id DESC LIMIT $${values.length}`,
        values,
      );
      return rows.map((row) => capturedOf(box, row));
    },
    async nthNewestSend(applicationRef, n) {
      await lockSends(applicationRef);
      return sentAt(
        "SELECT sent_at FROM tfa_sends WHERE application_ref = $1 ORDER BY sent_at DESC LIMIT 1 OFFSET $2",
        [applicationRef, n - 1],
      );
    },
    async nthNewestSendTo(applicationRef, msisdn, n) {
      await lockSends(applicationRef);
      return sentAt(
        `SELECT sent_at FROM tfa_sends WHERE application_ref = $1 AND msisdn = $2
         ORDER BY sent_at DESC LIMIT 1 OFFSET $3`,
        [applicationRef, msisdn, n - 1],
      );
    },
    async insertPin(pin, send) {
      // The PIN and its first message in one statement.
      const [row] = await sql.rows<{ pin_ref: number; id: number }>(
        `WITH pin AS (
           INSERT INTO tfa_pins (pin_id, account_id, application_ref, template_ref, msisdn, pin_sealed, sent,
             created_at, expires_at, attempts_remaining, verified, verified_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, false, NULL) RETURNING id)
         INSERT INTO tfa_sends (pin_ref, account_id, application_ref, msisdn, channel, text_sealed, sent_at)
         SELECT pin.id, $11, $12, $13, $14, $15, $16 FROM pin RETURNING pin_ref, id`,
        [
          pin.pinId,
          pin.accountId,
          pin.applicationRef,
          pin.templateRef,
          pin.msisdn,
          sealPin(box, pin.pin, pin.pinId),
          pin.sent,
          pin.createdAt,
          pin.expiresAt,
          pin.attemptsRemaining,
          send.accountId,
          send.applicationRef,
          send.msisdn,
          send.channel,
          sealText(box, send.text, pin.pinId),
          send.sentAt,
        ],
      );
      const { pin_ref, id } = row as { pin_ref: number; id: number };
      sent(send, id);
      return pin_ref;
    },
    async recordResend(send) {
      const [row] = await sql.rows<{ id: number }>(
        `INSERT INTO tfa_sends (pin_ref, account_id, application_ref, msisdn, channel, text_sealed, sent_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
        [
          send.pinRef,
          send.accountId,
          send.applicationRef,
          send.msisdn,
          send.channel,
          sealText(box, send.text, send.pinId),
          send.sentAt,
        ],
      );
      sent(send, (row as { id: number }).id);
    },
    async nthNewestVerifyCall(pin, n, forget) {
      // The PIN's row, locked to the commit: verify calls of one PIN through any replica take
      // turns from here, and each reads the calls committed before it. NO KEY UPDATE: inserts that
      // only refer to the PIN (a resend's message) do not wait.
      await sql.rows("SELECT id FROM tfa_pins WHERE id = $1 FOR NO KEY UPDATE", [pin.id]);
      await sql.count("DELETE FROM tfa_verify_calls WHERE pin_ref = $1 AND called_at <= $2", [
        pin.id,
        forget.windowStart,
      ]);
      // Rows another replica is deleting are left to it (no wait, no deadlock between purges).
      await sql.count(
        `DELETE FROM tfa_verify_calls WHERE id IN (SELECT id FROM tfa_verify_calls WHERE called_at <= $1
           ORDER BY called_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
        [forget.expiredBefore, VERIFY_CALL_PURGE_BATCH],
      );
      const [row] = await sql.rows<{ called_at: number }>(
        "SELECT called_at FROM tfa_verify_calls WHERE pin_ref = $1 ORDER BY called_at DESC LIMIT 1 OFFSET $2",
        [pin.id, n - 1],
      );
      return row?.called_at;
    },
    async recordVerifyCall(pin, at) {
      await sql.count("INSERT INTO tfa_verify_calls (pin_ref, called_at) VALUES ($1, $2)", [pin.id, at]);
    },
    async spendAttempt(pin) {
      const [row] = await sql.rows<StateRow>(
        `UPDATE tfa_pins SET attempts_remaining = attempts_remaining - 1
         WHERE id = $1 AND attempts_remaining > 0 AND ($2::boolean IS NULL OR verified = $2)
         ${STATE_RETURNING}`,
        [pin.id, pin.verified ?? null],
      );
      if (row) stateChanged(pin.pinId, row);
      return row?.attempts_remaining;
    },
    async markVerified(pin, verifiedAt) {
      const [row] = await sql.rows<StateRow>(
        `UPDATE tfa_pins SET verified = true, verified_at = COALESCE(verified_at, $2)
         WHERE id = $1 AND NOT verified AND attempts_remaining > 0 ${STATE_RETURNING}`,
        [pin.id, verifiedAt],
      );
      if (row) stateChanged(pin.pinId, row);
      return row !== undefined;
    },
  };
}
