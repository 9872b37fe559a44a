import type { SecretBox } from "../crypto/secretBox.ts";
import type {
  CapturedFilter,
  CapturedMessage,
  NewPin,
  NewSend,
  PinRecord,
  PinStatus,
  PinVerification,
} from "../domain/tfaRecords.ts";
import type { Db } from "./database.ts";
import type { VerifyCallForget } from "./store.ts";
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
} from "./tfaPinRows.ts";

/**
 * Sent PINs and every message sent for them, in SQLite. The PIN and each message text are only
 * ever stored sealed (bound to the pinId, secretBox.ts); the PIN status path reads no secret.
 */

export class TfaPinStore {
  readonly #db: Db;
  readonly #box: SecretBox;
  readonly #status;
  readonly #record;
  readonly #insertPin;
  readonly #insertSend;
  readonly #spendAttempt;
  readonly #markVerified;
  readonly #nthSendOfApplication;
  readonly #nthSendToNumber;
  readonly #dropCallsOutOfWindow;
  readonly #purgeCalls;
  readonly #nthCall;
  readonly #insertCall;

  constructor(db: Db, box: SecretBox) {
    this.#db = db;
    this.#box = box;
    this.#status = db.prepare<[string], StatusRowRaw>(
      `SELECT ${STATUS_COLUMNS} FROM tfa_pins WHERE pin_id = ?`,
    );
    this.#record = db.prepare<[string], RecordRowRaw>(`${RECORD_SELECT} WHERE p.pin_id = ?`);
    this.#insertPin = db.prepare<Record<string, unknown>, { id: number }>(
      `INSERT INTO tfa_pins (pin_id, account_id, application_ref, template_ref, msisdn, pin_sealed, sent, created_at,
        expires_at, attempts_remaining, verified, verified_at)
       VALUES (@pinId, @accountId, @applicationRef, @templateRef, @msisdn, @pinSealed, @sent, @createdAt, @expiresAt,
        @attemptsRemaining, 0, NULL) RETURNING id`,
    );
    this.#insertSend = db.prepare(
      `INSERT INTO tfa_sends (pin_ref, account_id, application_ref, msisdn, channel, text_sealed, sent_at)
       VALUES (@pinRef, @accountId, @applicationRef, @msisdn, @channel, @textSealed, @sentAt)`,
    );
    // Conditional writes: what they change is decided by the row as it is now, not as it was read.
    this.#spendAttempt = db
      .prepare<{ id: number; verified: number | null }>(
        `UPDATE tfa_pins SET attempts_remaining = attempts_remaining - 1
         WHERE id = @id AND attempts_remaining > 0 AND (@verified IS NULL OR verified = @verified)
         RETURNING attempts_remaining`,
      )
      .pluck();
    this.#markVerified = db.prepare(
      `UPDATE tfa_pins SET verified = 1, verified_at = COALESCE(verified_at, @verifiedAt)
       WHERE id = @id AND verified = 0 AND attempts_remaining > 0`,
    );
    this.#nthSendOfApplication = db
      .prepare<[number, number]>(
        "SELECT sent_at FROM tfa_sends WHERE application_ref = ? ORDER BY sent_at DESC LIMIT 1 OFFSET ?",
      )
      .pluck();
    this.#nthSendToNumber = db
      .prepare<[number, string, number]>(
        `SELECT sent_at FROM tfa_sends WHERE application_ref = ? AND msisdn = ?
         ORDER BY sent_at DESC LIMIT 1 OFFSET ?`,
      )
      .pluck();
    this.#dropCallsOutOfWindow = db.prepare<[number, number]>(
      "DELETE FROM tfa_verify_calls WHERE pin_ref = ? AND called_at <= ?",
    );
    this.#purgeCalls = db.prepare<[number, number]>(
      `DELETE FROM tfa_verify_calls WHERE id IN
       (SELECT id FROM tfa_verify_calls WHERE called_at <= ? ORDER BY called_at LIMIT ?)`,
    );
    this.#nthCall = db
      .prepare<[number, number]>(
        "SELECT called_at FROM tfa_verify_calls WHERE pin_ref = ? ORDER BY called_at DESC LIMIT 1 OFFSET ?",
      )
      .pluck();
    this.#insertCall = db.prepare<[number, number]>(
      "INSERT INTO tfa_verify_calls (pin_ref, called_at) VALUES (?, ?)",
    );
  }

  /**
   * Time of the n-th most recent verify call of the PIN still counted (1 = newest), after the
   * PIN's calls at or before `forget.windowStart` and a batch of every PIN's calls at or before
   * `forget.expiredBefore` are deleted (store.ts TfaPinWrites). One savepoint: all or nothing.
   */
  nthNewestVerifyCall(pin: { id: number }, n: number, forget: VerifyCallForget): number | undefined {
    return this.#db.transaction(() => {
      this.#dropCallsOutOfWindow.run(pin.id, forget.windowStart);
      this.#purgeCalls.run(forget.expiredBefore, VERIFY_CALL_PURGE_BATCH);
      return this.#nthCall.get(pin.id, n - 1) as number | undefined;
    })();
  }

  /** Counts one verify call of the PIN. */
  recordVerifyCall(pin: { id: number }, at: number): void {
    this.#insertCall.run(pin.id, at);
  }

  /** The hot path of PIN status: one lookup on the unique pinId index (TfaPins caches it). */
  status(pinId: string): PinStatus | undefined {
    const row = this.#status.get(pinId);
    return row && statusOf(row);
  }

  /** The PIN with its application and template, and the PIN itself decrypted. */
  record(pinId: string): PinRecord | undefined {
    const row = this.#record.get(pinId);
    return row && recordOf(this.#box, row);
  }

  /** Time of the n-th most recent message of the application (1 = newest), if there were that many. */
  nthNewestSend(applicationRef: number, n: number): number | undefined {
    return this.#nthSendOfApplication.get(applicationRef, n - 1) as number | undefined;
  }

  /** Time of the n-th most recent message of the application to one number. */
  nthNewestSendTo(applicationRef: number, msisdn: string, n: number): number | undefined {
    return this.#nthSendToNumber.get(applicationRef, msisdn, n - 1) as number | undefined;
  }

  #recordSend(send: NewSend): void {
    this.#insertSend.run({
      pinRef: send.pinRef,
      accountId: send.accountId,
      applicationRef: send.applicationRef,
      msisdn: send.msisdn,
      channel: send.channel,
      textSealed: sealText(this.#box, send.text, send.pinId),
      sentAt: send.sentAt,
    });
  }

  /** A new PIN and its first message, in one transaction. */
  insertPin(pin: NewPin, send: Omit<NewSend, "pinRef" | "pinId">): number {
    return this.#db.transaction(() => {
      const { id } = this.#insertPin.get({
        ...pin,
        pinSealed: sealPin(this.#box, pin.pin, pin.pinId),
        sent: pin.sent ? 1 : 0,
      }) as { id: number };
      this.#recordSend({ ...send, pinRef: id, pinId: pin.pinId });
      return id;
    })();
  }

  /** One more message of an existing PIN (a resend). */
  recordResend(send: NewSend): void {
    this.#recordSend(send);
  }

  /** Uses one attempt if one is left: the attempts left after it, or undefined when none was left. */
  spendAttempt(pin: { id: number; pinId: string; verified?: boolean }): number | undefined {
    const verified = pin.verified === undefined ? null : Number(pin.verified);
    return this.#spendAttempt.get({ id: pin.id, verified }) as number | undefined;
  }

  /** Marks the PIN verified if it is not yet and has an attempt left; false when it changed meanwhile. */
  markVerified(pin: { id: number; pinId: string }, verifiedAt: number): boolean {
    return this.#markVerified.run({ id: pin.id, verifiedAt }).changes === 1;
  }

  /** The application's PINs to one number, newest first, narrowed by verified and sent. */
  verifications(
    applicationRef: number,
    msisdn: string,
    filter: { verified?: boolean; sent?: boolean },
  ): PinVerification[] {
    const where = ["application_ref = @applicationRef", "msisdn = @msisdn"];
    const params: Record<string, unknown> = { applicationRef, msisdn };
    if (filter.verified !== undefined) {
      where.push("verified = @verified");
      params.verified = filter.verified ? 1 : 0;
    }
    if (filter.sent !== undefined) {
      where.push("sent = @sent");
      params.sent = filter.sent ? 1 : 0;
    }
    return this.#db
      .prepare<[Record<string, unknown>], VerificationRowRaw>(
        `SELECT msisdn, verified, verified_at, created_at FROM tfa_pins WHERE ${where.join(" AND ")} ORDER BY id DESC`,
      )
      .all(params)
      .map(verificationOf);
  }

  /** Captured messages of the given accounts, newest first. */
  captured(filter: CapturedFilter): CapturedMessage[] {
    const where = ["s.text_sealed IS NOT NULL", "s.account_id IN (SELECT value FROM json_each(@accountIds))"];
    const params: Record<string, unknown> = {
      accountIds: JSON.stringify(filter.accountIds),
      limit: filter.limit,
    };
    if (filter.toDigits !== undefined) {
      where.push("instr(s.msisdn, @toDigits) > 0");
      params.toDigits = filter.toDigits;
    }
    if (filter.applicationId !== undefined) {
      where.push("a.application_id = @applicationId");
      params.applicationId = filter.applicationId;
    }
    if (filter.before !== undefined) {
      where.push("s.id < @before");
      params.before = filter.before;
    }
    return this.#db
      .prepare<[Record<string, unknown>], CapturedRowRaw>(
        `${CAPTURED_SELECT} WHERE ${where.join(" AND ")} ORDER BY s.id DESC LIMIT @limit`,
      )
      .all(params)
      .map((row) => capturedOf(this.#box, row));
  }
}
