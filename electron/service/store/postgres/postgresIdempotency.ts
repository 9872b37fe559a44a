import type { SecretBox } from "../../crypto/secretBox.ts";
import {
  IDEMPOTENCY_PURGE_BATCH,
  IDEMPOTENCY_RETENTION_MS,
  idempotentRequestDigest,
  lookupOf,
  type RecordRow,
  sealAnswer,
} from "../idempotencyRows.ts";
import type { IdempotencyWrites } from "../store.ts";
import { advisoryLockKey, type Sql } from "./sql.ts";

/**
 * The advisory lock key of one (account, Idempotency-Key): a 64-bit hash, the same on every
 * replica, in a namespace of its own (the schema's lock is another constant).
 */
function idempotencyLockOf(accountId: number, idempotencyKey: string): string {
  return advisoryLockKey(`keydesk/idempotency-lock/${accountId}/${idempotencyKey}`);
}

/**
 * Remembered answers on PostgreSQL, digested and sealed as on SQLite (idempotencyStore.ts).
 * `lookup` first takes a transaction-level advisory lock on the (account, key): a retry arriving
 * on another replica while the first request's write is open waits for its commit, then finds
 * its record and replays it, instead of creating a second key.
 */
export function postgresIdempotency(sql: Sql, box: SecretBox): IdempotencyWrites {
  return {
    digestOf: (accountId, request) => idempotentRequestDigest(box, accountId, request),
    async lookup(accountId, idempotencyKey, digest, now) {
      await sql.rows("SELECT pg_advisory_xact_lock($1)", [idempotencyLockOf(accountId, idempotencyKey)]);
      const [row] = await sql.rows<RecordRow>(
        `SELECT request_digest, status, response_sealed, created_at FROM idempotent_requests
         WHERE account_id = $1 AND idempotency_key = $2`,
        [accountId, idempotencyKey],
      );
      return lookupOf(box, row, accountId, idempotencyKey, digest, now);
    },
    async remember(accountId, idempotencyKey, digest, answer, now) {
      // 2xx only, as on SQLite: anything else may be retried and is not kept.
      if (answer.status < 200 || answer.status > 299) return;
      await sql.count(
        `DELETE FROM idempotent_requests WHERE account_id = $1 AND idempotency_key = $2 AND created_at <= $3`,
        [accountId, idempotencyKey, now - IDEMPOTENCY_RETENTION_MS],
      );
      await sql.count(
        `INSERT INTO idempotent_requests (account_id, idempotency_key, request_digest, status, response_sealed, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [
          accountId,
          idempotencyKey,
          digest,
          answer.status,
          sealAnswer(box, accountId, idempotencyKey, answer.body),
          now,
        ],
      );
    },
    purgeExpired: (now) =>
      sql.count(
        `DELETE FROM idempotent_requests WHERE id IN
           (SELECT id FROM idempotent_requests WHERE created_at <= $1 ORDER BY created_at LIMIT $2)`,
        [now - IDEMPOTENCY_RETENTION_MS, IDEMPOTENCY_PURGE_BATCH],
      ),
  };
}
