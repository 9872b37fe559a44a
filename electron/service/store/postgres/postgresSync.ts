import { SYNCED_FIELDS } from "../../../../shared/sync.ts";
import type { SecretBox } from "../../crypto/secretBox.ts";
import type { LocalOnlyKey } from "../../domain/syncRecords.ts";
import { DuplicateError, type SyncWrites } from "../store.ts";
import {
  createAttemptJson,
  droppedFields,
  entryFieldsJson,
  type KeyRow,
  LINK_COLUMNS,
  type LinkRow,
  linkCountsOf,
  type OutboxRow,
  runLogWith,
  sealRemotePassword,
  serializeConflict,
  serializeConflictOrigin,
  serializeFields,
  toEntry,
  toKeyState,
  toLink,
  unsealRemotePassword,
} from "../syncRows.ts";
import type { Sql } from "./sql.ts";

const KEY_COLUMNS = "api_key_id, link_id, remote_key, base, remote_missing, conflict, conflict_origin";
const OUTBOX_COLUMNS =
  "id, link_id, api_key_id, kind, fields, idempotency_key, attempts, failed, last_error, created_at";

/**
 * The sync tables (links, linked keys, the outbox) on PostgreSQL, with SQLite's SyncStore
 * semantics: rows, JSON forms and the sealed remote password through syncStore.ts's functions,
 * the same orders. `sql` is the pool (reads) or the write's client (its tx), so sync rows commit
 * or roll back with the key change of the same write.
 */
export function postgresSync(sql: Sql, box: SecretBox): SyncWrites {
  const link = async (where: string, value: number) => {
    const [row] = await sql.rows<LinkRow>(`SELECT ${LINK_COLUMNS} FROM sync_links WHERE ${where} = $1`, [
      value,
    ]);
    return row && toLink(row);
  };
  const entries = async (where: string, values: unknown[]) =>
    (
      await sql.rows<OutboxRow>(
        `SELECT ${OUTBOX_COLUMNS} FROM sync_outbox WHERE ${where} ORDER BY id`,
        values,
      )
    ).map(toEntry);
  const deleteEntries = async (entryIds: readonly number[]) => {
    if (entryIds.length > 0)
      await sql.count("DELETE FROM sync_outbox WHERE id = ANY($1::bigint[])", [entryIds]);
  };

  const repository: SyncWrites = {
    // ---- links ---------------------------------------------------------------------------
    link: (id) => link("id", id),
    linkOfAccount: (accountId) => link("account_id", accountId),
    links: async () =>
      (await sql.rows<LinkRow>(`SELECT ${LINK_COLUMNS} FROM sync_links ORDER BY id`)).map(toLink),
    async remotePassword(link) {
      const [row] = await sql.rows<{ remote_password_sealed: Buffer }>(
        "SELECT remote_password_sealed FROM sync_links WHERE id = $1",
        [link.id],
      );
      if (!row) throw new Error(`sync link ${link.id} is gone`);
      return unsealRemotePassword(box, row.remote_password_sealed, link.accountId);
    },
    async counts(linkId) {
      const [outbox] = await sql.rows<{ pending: number; failed: number }>(
        `SELECT count(*) FILTER (WHERE NOT failed) AS pending, count(*) FILTER (WHERE failed) AS failed
         FROM sync_outbox WHERE link_id = $1`,
        [linkId],
      );
      const [keys] = await sql.rows<{ conflicts: number; missing: number; linked: number }>(
        `SELECT count(*) FILTER (WHERE conflict IS NOT NULL) AS conflicts,
           count(*) FILTER (WHERE remote_missing) AS missing, count(*) AS linked
         FROM sync_keys WHERE link_id = $1`,
        [linkId],
      );
      return linkCountsOf(outbox, keys);
    },
    async insertLink(link) {
      // ON CONFLICT rather than a unique violation: as on SQLite, the write stays usable for a
      // caller that answers the DuplicateError (two replicas linking one account at once).
      const [row] = await sql.rows<LinkRow>(
        `INSERT INTO sync_links (account_id, remote_base_url, remote_username, remote_password_sealed,
           remote_account_key, interval_seconds, next_attempt_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7) ON CONFLICT (account_id) DO NOTHING RETURNING ${LINK_COLUMNS}`,
        [
          link.accountId,
          link.remoteBaseUrl,
          link.remoteUsername,
          sealRemotePassword(box, link.remotePassword, link.accountId),
          link.remoteAccountKey,
          link.intervalSeconds,
          link.now,
        ],
      );
      if (!row) throw new DuplicateError(`account ${link.accountId} has a sync link already`);
      return toLink(row);
    },
    async setRemote(link, remote) {
      await sql.count(
        `UPDATE sync_links SET remote_base_url = $1, remote_username = $2, remote_password_sealed = $3,
           paused_reason = CASE WHEN paused_reason = 'credentials' THEN NULL ELSE paused_reason END
         WHERE id = $4`,
        [
          remote.baseUrl ?? link.remoteBaseUrl,
          remote.username,
          sealRemotePassword(box, remote.password, link.accountId),
          link.id,
        ],
      );
    },
    async setInterval(linkId, seconds) {
      await sql.count("UPDATE sync_links SET interval_seconds = $1 WHERE id = $2", [seconds, linkId]);
    },
    async setPaused(linkId, reason, error = null) {
      await sql.count(
        "UPDATE sync_links SET paused_reason = $1, last_error = COALESCE($2, last_error) WHERE id = $3",
        [reason, error, linkId],
      );
    },
    async recordLinkAttempt(linkId, now) {
      await sql.count("UPDATE sync_links SET last_attempt_at = $1 WHERE id = $2", [now, linkId]);
    },
    async recordSuccess(linkId, now, nextAttemptAt, problems) {
      await sql.count(
        `UPDATE sync_links SET last_success_at = $1, last_error = $2, failures = 0, next_attempt_at = $3
         WHERE id = $4`,
        [now, problems, nextAttemptAt, linkId],
      );
    },
    async planRun(linkId, at) {
      await sql.count("UPDATE sync_links SET next_attempt_at = $1, failures = 0 WHERE id = $2", [at, linkId]);
    },
    async recordFailure(linkId, error, nextAttemptAt, failures) {
      await sql.count(
        "UPDATE sync_links SET last_error = $1, next_attempt_at = $2, failures = $3 WHERE id = $4",
        [error, nextAttemptAt, failures, linkId],
      );
    },
    async recordRun(linkId, run, keep) {
      // The link's lease holder is the only writer of its log: no other run of it ends meanwhile.
      const [row] = await sql.rows<{ run_log: string | null }>(
        "SELECT run_log FROM sync_links WHERE id = $1",
        [linkId],
      );
      if (!row) return;
      await sql.count("UPDATE sync_links SET run_log = $1 WHERE id = $2", [
        runLogWith(row.run_log, run, keep),
        linkId,
      ]);
    },
    async deleteLink(linkId) {
      await sql.count("DELETE FROM sync_outbox WHERE link_id = $1", [linkId]);
      await sql.count("DELETE FROM sync_keys WHERE link_id = $1", [linkId]);
      await sql.count("DELETE FROM sync_links WHERE id = $1", [linkId]);
    },
    // Two replicas at once: the second waits on the row and checks the WHERE again on the row the
    // first committed, so only one of them takes a free lease.
    async leaseLink(linkId, owner, until, now) {
      const taken = await sql.count(
        `UPDATE sync_links SET lease_owner = $2, lease_until = $3
         WHERE id = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until <= $4)`,
        [linkId, owner, until, now],
      );
      return taken > 0;
    },
    async releaseLink(linkId, owner) {
      await sql.count(
        "UPDATE sync_links SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2",
        [linkId, owner],
      );
    },

    // ---- linked keys ---------------------------------------------------------------------
    async keyState(apiKeyId) {
      const [row] = await sql.rows<KeyRow>(`SELECT ${KEY_COLUMNS} FROM sync_keys WHERE api_key_id = $1`, [
        apiKeyId,
      ]);
      return row && toKeyState(row);
    },
    keyStates: async (linkId) =>
      (
        await sql.rows<KeyRow>(
          `SELECT ${KEY_COLUMNS} FROM sync_keys WHERE link_id = $1 ORDER BY api_key_id`,
          [linkId],
        )
      ).map(toKeyState),
    async keyStatesWithNewsIn(linkId, after, span) {
      const states = (
        await sql.rows<KeyRow>(
          `SELECT ${KEY_COLUMNS} FROM sync_keys k
           WHERE k.api_key_id > $1 AND k.api_key_id <= $2 AND k.link_id = $3
             AND (k.conflict IS NOT NULL OR k.remote_missing OR k.remote_key IS NULL
               OR EXISTS (SELECT 1 FROM sync_outbox o WHERE o.api_key_id = k.api_key_id AND o.link_id = $3))
           ORDER BY k.api_key_id`,
          [after, after + span, linkId],
        )
      ).map(toKeyState);
      const [row] = await sql.rows<{ last: number | null }>(
        "SELECT max(api_key_id) AS last FROM sync_keys WHERE link_id = $1",
        [linkId],
      );
      const last = row?.last ?? null;
      return { states, next: last !== null && last > after + span ? after + span : null };
    },
    async remoteKeyLinked(linkId, remoteKey) {
      return (
        (
          await sql.rows("SELECT 1 FROM sync_keys WHERE link_id = $1 AND remote_key = $2", [
            linkId,
            remoteKey,
          ])
        ).length > 0
      );
    },
    async insertKeyState(state) {
      await sql.count(
        "INSERT INTO sync_keys (api_key_id, link_id, remote_key, base) VALUES ($1, $2, $3, $4)",
        [state.apiKeyId, state.linkId, state.remoteKey, state.base && serializeFields(state.base)],
      );
    },
    async deleteKeyState(apiKeyId) {
      await sql.count("DELETE FROM sync_keys WHERE api_key_id = $1", [apiKeyId]);
    },
    async setRemoteKey(apiKeyId, remoteKey, base) {
      await sql.count(
        "UPDATE sync_keys SET remote_key = $1, base = $2, remote_missing = false WHERE api_key_id = $3",
        [remoteKey, serializeFields(base), apiKeyId],
      );
    },
    async setBase(apiKeyId, base) {
      await sql.count("UPDATE sync_keys SET base = $1 WHERE api_key_id = $2", [
        serializeFields(base),
        apiKeyId,
      ]);
    },
    async setConflict(apiKeyId, conflict) {
      await sql.count("UPDATE sync_keys SET conflict = $1 WHERE api_key_id = $2", [
        serializeConflict(conflict),
        apiKeyId,
      ]);
    },
    async setConflictOrigin(apiKeyId, origin) {
      await sql.count("UPDATE sync_keys SET conflict_origin = $1 WHERE api_key_id = $2", [
        serializeConflictOrigin(origin),
        apiKeyId,
      ]);
    },
    async setRemoteMissing(apiKeyId, missing) {
      await sql.count("UPDATE sync_keys SET remote_missing = $1 WHERE api_key_id = $2", [missing, apiKeyId]);
    },

    // ---- local-only keys -----------------------------------------------------------------
    async localOnlyKeys(accountId, after, limit) {
      return sql.rows<LocalOnlyKey>(
        `SELECT a.id, a.key, a.name, a.enabled, a.valid_from AS "validFrom", a.valid_to AS "validTo"
         FROM api_keys a
         WHERE a.account_id = $1 AND a.id > $2
           AND NOT EXISTS (SELECT 1 FROM sync_keys k WHERE k.api_key_id = a.id)
         ORDER BY a.id LIMIT $3`,
        [accountId, after, limit],
      );
    },
    async countLocalOnly(accountId) {
      const [row] = await sql.rows<{ count: number }>(
        `SELECT count(*) AS count FROM api_keys a
         WHERE a.account_id = $1 AND NOT EXISTS (SELECT 1 FROM sync_keys k WHERE k.api_key_id = a.id)`,
        [accountId],
      );
      return row?.count ?? 0;
    },
    async queueCreate(linkId, apiKeyId, idempotencyKey, now, reason = null) {
      // ON CONFLICT rather than a read first: a key queued at once by two replicas is queued by
      // the one whose insert commits first; the other waits for it and answers false.
      const inserted = await sql.count(
        `INSERT INTO sync_keys (api_key_id, link_id, remote_key, base) VALUES ($1, $2, NULL, NULL)
         ON CONFLICT (api_key_id) DO NOTHING`,
        [apiKeyId, linkId],
      );
      if (inserted === 0) return false;
      await repository.enqueue({
        linkId,
        apiKeyId,
        kind: "create",
        fields: SYNCED_FIELDS,
        idempotencyKey,
        now,
        reason,
      });
      return true;
    },

    // ---- outbox --------------------------------------------------------------------------
    async enqueue(entry) {
      await sql.count(
        `INSERT INTO sync_outbox (link_id, api_key_id, kind, fields, idempotency_key, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [
          entry.linkId,
          entry.apiKeyId,
          entry.kind,
          entryFieldsJson(entry.fields, entry.reason),
          entry.idempotencyKey ?? null,
          entry.now,
        ],
      );
    },
    async entry(id) {
      const [row] = await sql.rows<OutboxRow>(`SELECT ${OUTBOX_COLUMNS} FROM sync_outbox WHERE id = $1`, [
        id,
      ]);
      return row && toEntry(row);
    },
    uncertainCreates: async (linkId) =>
      (
        await entries(
          `link_id = $1 AND kind = 'create' AND NOT failed AND attempts > 0
           AND (fields::jsonb -> 'sentBody') IS NOT NULL`,
          [linkId],
        )
      ).filter((entry) => entry.sentBody !== null),
    entriesAfter: async (linkId, after, limit) =>
      (
        await sql.rows<OutboxRow>(
          `SELECT ${OUTBOX_COLUMNS} FROM sync_outbox WHERE link_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
          [linkId, after, limit],
        )
      ).map(toEntry),
    entries: (linkId) => entries("link_id = $1", [linkId]),
    entriesOfKey: (apiKeyId) => entries("api_key_id = $1", [apiKeyId]),
    async recordCreateAttempt(entryId, sentBody, fields, reason = null) {
      await sql.count("UPDATE sync_outbox SET attempts = attempts + 1, fields = $1 WHERE id = $2", [
        createAttemptJson(sentBody, fields, reason),
        entryId,
      ]);
    },
    async recordEntryAttempts(entryIds, error) {
      if (entryIds.length === 0) return;
      await sql.count(
        `UPDATE sync_outbox SET attempts = attempts + 1, last_error = COALESCE($1, last_error)
         WHERE id = ANY($2::bigint[])`,
        [error, entryIds],
      );
    },
    async markFailed(entryIds, error) {
      if (entryIds.length === 0) return;
      await sql.count("UPDATE sync_outbox SET failed = true, last_error = $1 WHERE id = ANY($2::bigint[])", [
        error,
        entryIds,
      ]);
    },
    async retry(entryId) {
      await sql.count("UPDATE sync_outbox SET failed = false, last_error = NULL WHERE id = $1", [entryId]);
    },
    deleteEntries,
    async dropFields(apiKeyId, fields, upToId = Number.MAX_SAFE_INTEGER) {
      if (fields.length === 0) return;
      const { deleted, rewritten } = droppedFields(await repository.entriesOfKey(apiKeyId), fields, upToId);
      await deleteEntries(deleted);
      for (const entry of rewritten)
        await sql.count("UPDATE sync_outbox SET fields = $1 WHERE id = $2", [entry.fields, entry.id]);
    },
  };
  return repository;
}
