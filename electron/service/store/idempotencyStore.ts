import { timingSafeEqual } from "node:crypto";
import type { SecretBox } from "../crypto/secretBox.ts";
import type { Db } from "./database.ts";

/**
 * Remembered answers of creates sent with an `Idempotency-Key`, per authenticated account.
 * A record holds a keyed digest of the request (account, method, path, canonical body) and the
 * answer, sealed (it carries a publicApiKey). Records live for 24 hours; only successful answers
 * are remembered. Every method runs inside the caller's write transaction, so the lookup, the
 * create and the record commit together or not at all.
 */

/** How long a record is answered from: 24 hours after the create it remembers. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** At most this many expired records are deleted per idempotent write. */
export const IDEMPOTENCY_PURGE_BATCH = 100;

/** What identifies "the same request" besides the key: path with parameters resolved, and body. */
export interface IdempotentRequest {
  method: string;
  path: string;
  /** The parsed JSON body; absent counts as `{}`. */
  body: unknown;
}

/** A remembered successful answer: status and the JSON body text sent. */
export interface RememberedAnswer {
  status: number;
  body: string;
}

export type IdempotencyLookup =
  | { kind: "new" }
  | { kind: "replay"; answer: RememberedAnswer }
  | { kind: "conflict" };

/** A stored record as either database returns it. */
export interface RecordRow {
  request_digest: Buffer;
  status: number;
  response_sealed: Buffer;
  created_at: number;
}

/** JSON with object keys sorted at every depth: equal for equal JSON values, whatever the key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value === undefined ? {} : value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== "object" || Array.isArray(inner)) return inner;
    const sorted: Record<string, unknown> = {};
    for (const name of Object.keys(inner).sort()) sorted[name] = (inner as Record<string, unknown>)[name];
    return sorted;
  });
}

/** The sealed answer is bound to its account and key: it cannot be moved to another record. */
const aadOf = (accountId: number, idempotencyKey: string) =>
  `idempotent-request/${accountId}/${idempotencyKey}`;

/** Keyed digest (HMAC) of everything that makes two requests "the same" for one account. */
export function idempotentRequestDigest(
  box: SecretBox,
  accountId: number,
  request: IdempotentRequest,
): Buffer {
  return box.digest(
    JSON.stringify([
      "keydesk/idempotent-request/v1",
      accountId,
      request.method.toUpperCase(),
      request.path,
      canonicalJson(request.body),
    ]),
  );
}

/** A remembered answer as it is stored (it carries a publicApiKey). */
export function sealAnswer(box: SecretBox, accountId: number, idempotencyKey: string, body: string): Buffer {
  return box.encrypt(body, aadOf(accountId, idempotencyKey));
}

/** What a stored record (or none) answers to a request with this digest at `now`. */
export function lookupOf(
  box: SecretBox,
  row: RecordRow | undefined,
  accountId: number,
  idempotencyKey: string,
  digest: Buffer,
  now: number,
): IdempotencyLookup {
  if (!row || isExpired(row.created_at, now)) return { kind: "new" };
  const same = row.request_digest.length === digest.length && timingSafeEqual(row.request_digest, digest);
  if (!same) return { kind: "conflict" };
  const body = box.decrypt(row.response_sealed, aadOf(accountId, idempotencyKey));
  return { kind: "replay", answer: { status: row.status, body } };
}

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

function isExpired(createdAt: number, now: number): boolean {
  return createdAt <= now - IDEMPOTENCY_RETENTION_MS;
}
