import type { SecretBox } from "../crypto/secretBox.ts";
import type { IdempotencyLookup, IdempotentRequest, RememberedAnswer } from "../domain/idempotency.ts";
import type { Db } from "./database.ts";
import {
  IDEMPOTENCY_PURGE_BATCH,
  IDEMPOTENCY_RETENTION_MS,
  idempotentRequestDigest,
  lookupOf,
  type RecordRow,
  sealAnswer,
} from "./idempotencyRows.ts";

/**
 * Remembered answers of creates sent with an `Idempotency-Key`, per authenticated account.
 * A record holds a keyed digest of the request (account, method, path, canonical body) and the
 * answer, sealed (it carries a publicApiKey). Records live for 24 hours; only successful answers
 * are remembered. Every method runs inside the caller's write transaction, so the lookup, the
 * create and the record commit together or not at all.
 */

export class IdempotencyStore {
  readonly #box: SecretBox;
  readonly #find;
  readonly #insert;
  readonly #dropExpired;
  readonly #purge;

  constructor(db: Db, box: SecretBox) {
    this.#box = box;
    this.#find = db.prepare<[number, string], RecordRow>(
      `SELECT request_digest, status, response_sealed, created_at FROM idempotent_requests
       WHERE account_id = ? AND idempotency_key = ?`,
    );
    // A live record is answered, never replaced: inserting over one fails on the UNIQUE constraint.
    this.#insert = db.prepare(
      `INSERT INTO idempotent_requests (account_id, idempotency_key, request_digest, status, response_sealed, created_at)
       VALUES (@accountId, @idempotencyKey, @digest, @status, @sealed, @now)`,
    );
    this.#dropExpired = db.prepare(
      `DELETE FROM idempotent_requests WHERE account_id = @accountId AND idempotency_key = @idempotencyKey
       AND created_at <= @expiredAt`,
    );
    this.#purge = db.prepare<[number, number]>(
      `DELETE FROM idempotent_requests WHERE id IN
       (SELECT id FROM idempotent_requests WHERE created_at <= ? ORDER BY created_at LIMIT ?)`,
    );
  }

  /** Keyed digest (HMAC) of everything that makes two requests "the same" for one account. */
  digestOf(accountId: number, request: IdempotentRequest): Buffer {
    return idempotentRequestDigest(this.#box, accountId, request);
  }

  /** The live record for this account and key: its answer when the digest matches, else a conflict. */
  lookup(accountId: number, idempotencyKey: string, digest: Buffer, now: number): IdempotencyLookup {
    return lookupOf(
      this.#box,
      this.#find.get(accountId, idempotencyKey),
      accountId,
      idempotencyKey,
      digest,
      now,
    );
  }

  /** Remembers a successful answer (2xx only; anything else may be retried and is not kept). */
  remember(
    accountId: number,
    idempotencyKey: string,
    digest: Buffer,
    answer: RememberedAnswer,
    now: number,
  ): void {
    if (answer.status < 200 || answer.status > 299) return;
    this.#dropExpired.run({ accountId, idempotencyKey, expiredAt: now - IDEMPOTENCY_RETENTION_MS });
    this.#insert.run({
      accountId,
      idempotencyKey,
      digest,
      status: answer.status,
      sealed: sealAnswer(this.#box, accountId, idempotencyKey, answer.body),
      now,
    });
  }

  /** Deletes up to `limit` expired records, oldest first; returns how many went. */
  purgeExpired(now: number, limit = IDEMPOTENCY_PURGE_BATCH): number {
    return this.#purge.run(now - IDEMPOTENCY_RETENTION_MS, limit).changes;
  }
}
