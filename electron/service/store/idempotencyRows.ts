import { timingSafeEqual } from "node:crypto";
import type { SecretBox } from "../crypto/secretBox.ts";
import type { IdempotencyLookup, IdempotentRequest } from "../domain/idempotency.ts";

// Remembered idempotent answers: rows and codecs the same on SQLite (idempotencyStore.ts) and
// PostgreSQL (postgres/postgresIdempotency.ts). No SQL dialect and no connection here, so neither
// store imports the other's code.

/** How long a record is answered from: 24 hours after the create it remembers. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** At most this many expired records are deleted per idempotent write. */
export const IDEMPOTENCY_PURGE_BATCH = 100;

/** A stored record as either database returns it. */
export interface RecordRow {
  request_digest: Buffer;
  status: number;
  response_sealed: Buffer;
  created_at: number;
}

/**
 * JSON with object keys sorted at every depth: equal for equal JSON values, whatever the key order.
 * @internal Exported for tests.
 */
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

function isExpired(createdAt: number, now: number): boolean {
  return createdAt <= now - IDEMPOTENCY_RETENTION_MS;
}
