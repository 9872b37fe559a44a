import type { SecretBox } from "../crypto/secretBox.ts";
import type { StoredSession } from "../domain/ibssoSessions.ts";
import type { Db } from "./database.ts";
import { SESSION_PURGE_BATCH, type SessionRow, sessionOf, sessionTokenDigest } from "./ibssoSessionRows.ts";

/**
 * IBSSO sessions on SQLite: a row per session with its token's keyed digest, never the token.
 * Synchronous, on the service's one connection (a write holds the whole database, so the count
 * of an account's live sessions and the insert that follows it cannot interleave with another's).
 */
export class IbssoSessionStore {
  readonly #box: SecretBox;
  readonly #byDigest;
  readonly #insert;
  readonly #liveOf;
  readonly #delete;
  readonly #deleteByDigest;
  readonly #purge;

  constructor(db: Db, box: SecretBox) {
    this.#box = box;
    this.#byDigest = db.prepare<[Buffer], SessionRow>(
      "SELECT id, account_id, created_at, expires_at FROM ibsso_sessions WHERE token_digest = ?",
    );
    this.#insert = db.prepare<[number, Buffer, number, number], SessionRow>(
      `INSERT INTO ibsso_sessions (account_id, token_digest, created_at, expires_at) VALUES (?, ?, ?, ?)
       RETURNING id, account_id, created_at, expires_at`,
    );
    this.#liveOf = db.prepare<[number, number], SessionRow>(
      `SELECT id, account_id, created_at, expires_at FROM ibsso_sessions
       WHERE account_id = ? AND expires_at > ? ORDER BY created_at, id`,
    );
    this.#delete = db.prepare<[number]>("DELETE FROM ibsso_sessions WHERE id = ?");
    this.#deleteByDigest = db.prepare<[Buffer]>("DELETE FROM ibsso_sessions WHERE token_digest = ?");
    this.#purge = db.prepare<[number, number]>(
      `DELETE FROM ibsso_sessions WHERE id IN
       (SELECT id FROM ibsso_sessions WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)`,
    );
  }

  digestOf(token: string): Buffer {
    return sessionTokenDigest(this.#box, token);
  }

  byDigest(digest: Buffer): StoredSession | undefined {
    const row = this.#byDigest.get(digest);
    return row && sessionOf(row);
  }

  insert(accountId: number, digest: Buffer, createdAt: number, expiresAt: number): StoredSession {
    return sessionOf(this.#insert.get(accountId, digest, createdAt, expiresAt) as SessionRow);
  }

  liveOf(accountId: number, now: number): StoredSession[] {
    return this.#liveOf.all(accountId, now).map(sessionOf);
  }

  delete(ids: readonly number[]): void {
    for (const id of ids) this.#delete.run(id);
  }

  deleteByDigest(digest: Buffer): boolean {
    return this.#deleteByDigest.run(digest).changes > 0;
  }

  purgeExpired(now: number): number {
    return this.#purge.run(now, SESSION_PURGE_BATCH).changes;
  }
}
