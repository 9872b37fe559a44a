import type { SecretBox } from "../../crypto/secretBox.ts";
import { SESSION_PURGE_BATCH, type SessionRow, sessionOf, sessionTokenDigest } from "../ibssoSessionRows.ts";
import type { IbssoSessionWrites } from "../store.ts";
import { advisoryLockKey, type Sql } from "./sql.ts";

const COLUMNS = "id, account_id, created_at, expires_at";

/**
 * IBSSO sessions on PostgreSQL, digested as on SQLite (ibssoSessionStore.ts). `liveOf` first takes
 * a transaction-level advisory lock on the account: two creates through different replicas take
 * turns, so the account never keeps more live sessions than the limit.
 */
export function postgresIbssoSessions(sql: Sql, box: SecretBox): IbssoSessionWrites {
  return {
    digestOf: (token) => sessionTokenDigest(box, token),
    async byDigest(digest) {
      const [row] = await sql.rows<SessionRow>(
        `SELECT ${COLUMNS} FROM ibsso_sessions WHERE token_digest = $1`,
        [digest],
      );
      return row && sessionOf(row);
    },
    async insert(accountId, digest, createdAt, expiresAt) {
      const [row] = await sql.rows<SessionRow>(
        `INSERT INTO ibsso_sessions (account_id, token_digest, created_at, expires_at) VALUES ($1, $2, $3, $4)
         RETURNING ${COLUMNS}`,
        [accountId, digest, createdAt, expiresAt],
      );
      return sessionOf(row as SessionRow);
    },
    async liveOf(accountId, now) {
      await sql.rows("SELECT pg_advisory_xact_lock($1)", [
        advisoryLockKey(`keydesk/ibsso-sessions/${accountId}`),
      ]);
      const rows = await sql.rows<SessionRow>(
        `SELECT ${COLUMNS} FROM ibsso_sessions WHERE account_id = $1 AND expires_at > $2 ORDER BY created_at, id`,
        [accountId, now],
      );
      return rows.map(sessionOf);
    },
    async delete(ids) {
      if (ids.length > 0) await sql.count("DELETE FROM ibsso_sessions WHERE id = ANY($1::bigint[])", [ids]);
    },
    deleteByDigest: async (digest) =>
      (await sql.count("DELETE FROM ibsso_sessions WHERE token_digest = $1", [digest])) > 0,
    purgeExpired: (now) =>
      sql.count(
        `DELETE FROM ibsso_sessions WHERE id IN
           (SELECT id FROM ibsso_sessions WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`,
        [now, SESSION_PURGE_BATCH],
      ),
  };
}
