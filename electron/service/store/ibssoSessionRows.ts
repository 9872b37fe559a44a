import type { SecretBox } from "../crypto/secretBox.ts";
import type { StoredSession } from "../domain/ibssoSessions.ts";

// IBSSO sessions: rows and the token's digest, the same on SQLite (ibssoSessionStore.ts) and
// PostgreSQL (postgres/postgresIbssoSessions.ts). No SQL dialect here.

/** A row as either database returns it. */
export interface SessionRow {
  id: number;
  account_id: number;
  created_at: number;
  expires_at: number;
}

/** At most this many expired sessions are deleted per purge. */
export const SESSION_PURGE_BATCH = 100;

export const sessionOf = (row: SessionRow): StoredSession => ({
  id: row.id,
  accountId: row.account_id,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

/**
 * The keyed digest (HMAC with the data key's digest key) a token is stored and found by. The
 * domain prefix keeps it apart from every other digest made with the same key (publicApiKeys'):
 * no token digest can equal another value's.
 */
export function sessionTokenDigest(box: SecretBox, token: string): Buffer {
  return box.digest(`ibsso-session\0${token}`);
}
