import type { AuditReason } from "../../../shared/audit.ts";
import { SYNCED_FIELDS, type SyncedField } from "../../../shared/sync.ts";
import type { SecretBox } from "../crypto/secretBox.ts";
import type {
  Fields,
  LinkCounts,
  LocalOnlyKey,
  OutboxEntry,
  SyncKeyState,
  SyncLink,
  SyncRunRecord,
} from "../domain/syncRecords.ts";
import type { Db } from "./database.ts";
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
} from "./syncRows.ts";

/**
 * The sync state (electron/sync) in the service's own database: links (remote password sealed
 * with the data key), each linked key's remote id and last agreed fields, and the outbox of local
 * changes. Behind the Store's `sync` repository (sqliteStore.ts): writes run inside the service's
 * write transactions, together with the key writes.
 */

export class SyncStore {
  readonly #db: Db;
  readonly #box: SecretBox;
  readonly #linkByAccount;
  readonly #keyState;
  readonly #insertEntry;
  readonly #statements = new Map<string, unknown>();

  /** A prepared statement, made once per SQL text. */
  #sql<P extends unknown[] = unknown[], R = unknown>(sql: string): import("better-sqlite3").Statement<P, R> {
    let statement = this.#statements.get(sql) as import("better-sqlite3").Statement<P, R> | undefined;
    if (!statement) {
      statement = this.#db.prepare<P, R>(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  constructor(db: Db, box: SecretBox) {
    this.#db = db;
    this.#box = box;
    this.#linkByAccount = db.prepare<[number], LinkRow>(
      `SELECT ${LINK_COLUMNS} FROM sync_links WHERE account_id = ?`,
    );
    this.#keyState = db.prepare<[number], KeyRow>("SELECT * FROM sync_keys WHERE api_key_id = ?");
    this.#insertEntry = db.prepare(
      `INSERT INTO sync_outbox (link_id, api_key_id, kind, fields, idempotency_key, created_at)
       VALUES (@linkId, @apiKeyId, @kind, @fields, @idempotencyKey, @now)`,
    );
  }

  // ---- links ---------------------------------------------------------------------------

  insertLink(link: {
    accountId: number;
    remoteBaseUrl: string;
    remoteUsername: string;
    remotePassword: string;
    remoteAccountKey: string;
    intervalSeconds: number;
    now: number;
  }): SyncLink {
    const { id } = this.#sql(
      `INSERT INTO sync_links (account_id, remote_base_url, remote_username, remote_password_sealed,
          remote_account_key, interval_seconds, next_attempt_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    ).get(
      link.accountId,
      link.remoteBaseUrl,
      link.remoteUsername,
      sealRemotePassword(this.#box, link.remotePassword, link.accountId),
      link.remoteAccountKey,
      link.intervalSeconds,
      link.now,
      link.now,
    ) as { id: number };
    return this.link(id) as SyncLink;
  }

  link(id: number): SyncLink | undefined {
    const row = this.#sql<[number], LinkRow>(`SELECT ${LINK_COLUMNS} FROM sync_links WHERE id = ?`).get(id);
    return row && toLink(row);
  }

  linkOfAccount(accountId: number): SyncLink | undefined {
    const row = this.#linkByAccount.get(accountId);
    return row && toLink(row);
  }

  links(): SyncLink[] {
    return this.#sql<[], LinkRow>(`SELECT ${LINK_COLUMNS} FROM sync_links ORDER BY id`).all().map(toLink);
  }

  remotePassword(link: SyncLink): string {
    const row = this.#sql<[number], { remote_password_sealed: Buffer }>(
      "SELECT remote_password_sealed FROM sync_links WHERE id = ?",
    ).get(link.id);
    if (!row) throw new Error(`sync link ${link.id} is gone`);
    return unsealRemotePassword(this.#box, row.remote_password_sealed, link.accountId);
  }

  /** New credentials (and address, when it moved); a link paused for its credentials resumes. */
  setRemote(
    link: SyncLink,
    remote: { baseUrl?: string | undefined; username: string; password: string },
  ): void {
    this.#sql(
      `UPDATE sync_links SET remote_base_url = ?, remote_username = ?, remote_password_sealed = ?,
          paused_reason = CASE WHEN paused_reason = 'credentials' THEN NULL ELSE paused_reason END
         WHERE id = ?`,
    ).run(
      remote.baseUrl ?? link.remoteBaseUrl,
      remote.username,
      sealRemotePassword(this.#box, remote.password, link.accountId),
      link.id,
    );
  }

  setInterval(linkId: number, seconds: number): void {
    this.#sql("UPDATE sync_links SET interval_seconds = ? WHERE id = ?").run(seconds, linkId);
  }

  setPaused(linkId: number, reason: SyncLink["pausedReason"], error: string | null = null): void {
    this.#sql(
      "UPDATE sync_links SET paused_reason = ?, last_error = COALESCE(?, last_error) WHERE id = ?",
    ).run(reason, error, linkId);
  }

  recordLinkAttempt(linkId: number, now: number): void {
    this.#sql("UPDATE sync_links SET last_attempt_at = ? WHERE id = ?").run(now, linkId);
  }

  /** A run went through; `problems` names keys it could not handle (null when none). */
  recordSuccess(linkId: number, now: number, nextAttemptAt: number, problems: string | null): void {
    this.#sql(
      `UPDATE sync_links SET last_success_at = ?, last_error = ?, failures = 0, next_attempt_at = ?
         WHERE id = ?`,
    ).run(now, problems, nextAttemptAt, linkId);
  }

  /** Plans the next run at `at`, ending any backoff. */
  planRun(linkId: number, at: number): void {
    this.#sql("UPDATE sync_links SET next_attempt_at = ?, failures = 0 WHERE id = ?").run(at, linkId);
  }

  recordFailure(linkId: number, error: string, nextAttemptAt: number | null, failures: number): void {
    this.#sql("UPDATE sync_links SET last_error = ?, next_attempt_at = ?, failures = ? WHERE id = ?").run(
      error,
      nextAttemptAt,
      failures,
      linkId,
    );
  }

  /** Adds a finished run to the link's log, keeping the newest `keep`. */
  recordRun(linkId: number, run: SyncRunRecord, keep: number): void {
    const row = this.#sql<[number], { run_log: string | null }>(
      "SELECT run_log FROM sync_links WHERE id = ?",
    ).get(linkId);
    if (!row) return;
    this.#sql("UPDATE sync_links SET run_log = ? WHERE id = ?").run(
      runLogWith(row.run_log, run, keep),
      linkId,
    );
  }

  /** Removes the link and its sync state; the keys themselves stay, as local keys. */
  deleteLink(linkId: number): void {
    this.#sql("DELETE FROM sync_outbox WHERE link_id = ?").run(linkId);
    this.#sql("DELETE FROM sync_keys WHERE link_id = ?").run(linkId);
    this.#sql("DELETE FROM sync_links WHERE id = ?").run(linkId);
  }

  counts(linkId: number): LinkCounts {
    const outbox = this.#sql<[number], { pending: number | null; failed: number | null }>(
      `SELECT SUM(failed = 0) AS pending, SUM(failed = 1) AS failed FROM sync_outbox WHERE link_id = ?`,
    ).get(linkId);
    const keys = this.#sql<[number], { conflicts: number | null; missing: number | null; linked: number }>(
      `SELECT SUM(conflict IS NOT NULL) AS conflicts, SUM(remote_missing) AS missing, COUNT(*) AS linked
         FROM sync_keys WHERE link_id = ?`,
    ).get(linkId);
    return linkCountsOf(outbox, keys);
  }

  // ---- linked keys ---------------------------------------------------------------------

  keyState(apiKeyId: number): SyncKeyState | undefined {
    const row = this.#keyState.get(apiKeyId);
    return row && toKeyState(row);
  }

  keyStates(linkId: number): SyncKeyState[] {
    return this.#sql<[number], KeyRow>("SELECT * FROM sync_keys WHERE link_id = ? ORDER BY api_key_id")
      .all(linkId)
      .map(toKeyState);
  }

  /**
   * Keys with anything to show (conflicts, flags, or changes not yet out) among the key ids in
   * (after, after + span]: a bounded step however many keys the link mirrors. `next` is where the
   * following step starts, null past the link's last key.
   */
  keyStatesWithNewsIn(
    linkId: number,
    after: number,
    span: number,
  ): { states: SyncKeyState[]; next: number | null } {
    const states = this.#sql<[number, number, number, number], KeyRow>(
      `SELECT * FROM sync_keys k WHERE k.api_key_id > ? AND k.api_key_id <= ? AND k.link_id = ?
         AND (k.conflict IS NOT NULL OR k.remote_missing = 1 OR k.remote_key IS NULL
           OR EXISTS (SELECT 1 FROM sync_outbox o WHERE o.api_key_id = k.api_key_id AND o.link_id = ?))
         ORDER BY k.api_key_id`,
    )
      .all(after, after + span, linkId, linkId)
      .map(toKeyState);
    const last = this.#sql<[number], { last: number | null }>(
      "SELECT max(api_key_id) AS last FROM sync_keys WHERE link_id = ?",
    ).get(linkId)?.last;
    return { states, next: last !== null && last !== undefined && last > after + span ? after + span : null };
  }

  insertKeyState(state: {
    apiKeyId: number;
    linkId: number;
    remoteKey: string | null;
    base: Fields | null;
  }): void {
    this.#sql("INSERT INTO sync_keys (api_key_id, link_id, remote_key, base) VALUES (?, ?, ?, ?)").run(
      state.apiKeyId,
      state.linkId,
      state.remoteKey,
      state.base && serializeFields(state.base),
    );
  }

  /** Whether a key of this link is already the twin of this remote key. */
  remoteKeyLinked(linkId: number, remoteKey: string): boolean {
    return (
      this.#sql("SELECT 1 FROM sync_keys WHERE link_id = ? AND remote_key = ?").get(linkId, remoteKey) !==
      undefined
    );
  }

  deleteKeyState(apiKeyId: number): void {
    this.#sql("DELETE FROM sync_keys WHERE api_key_id = ?").run(apiKeyId);
  }

  setRemoteKey(apiKeyId: number, remoteKey: string, base: Fields): void {
    this.#sql("UPDATE sync_keys SET remote_key = ?, base = ?, remote_missing = 0 WHERE api_key_id = ?").run(
      remoteKey,
      serializeFields(base),
      apiKeyId,
    );
  }

  setBase(apiKeyId: number, base: Fields): void {
    this.#sql("UPDATE sync_keys SET base = ? WHERE api_key_id = ?").run(serializeFields(base), apiKeyId);
  }

  setConflict(apiKeyId: number, conflict: SyncKeyState["conflict"]): void {
    this.#sql("UPDATE sync_keys SET conflict = ? WHERE api_key_id = ?").run(
      serializeConflict(conflict),
      apiKeyId,
    );
  }

  setConflictOrigin(apiKeyId: number, origin: SyncKeyState["conflictOrigin"]): void {
    this.#sql("UPDATE sync_keys SET conflict_origin = ? WHERE api_key_id = ?").run(
      serializeConflictOrigin(origin),
      apiKeyId,
    );
  }

  setRemoteMissing(apiKeyId: number, missing: boolean): void {
    this.#sql("UPDATE sync_keys SET remote_missing = ? WHERE api_key_id = ?").run(missing ? 1 : 0, apiKeyId);
  }

  // ---- local-only keys -------------------------------------------------------------------

  /**
   * Keys of the account that no link knows: made before the account was linked, or whose create
   * was discarded. Up to `limit` of them after key id `after`, in creation order.
   */
  localOnlyKeys(accountId: number, after: number, limit: number): LocalOnlyKey[] {
    return this.#sql<
      [number, number, number],
      {
        id: number;
        key: string;
        name: string;
        enabled: number;
        valid_from: number | null;
        valid_to: number | null;
      }
    >(
      `SELECT a.id, a.key, a.name, a.enabled, a.valid_from, a.valid_to FROM api_keys a
         WHERE a.account_id = ? AND a.id > ?
           AND NOT EXISTS (SELECT 1 FROM sync_keys k WHERE k.api_key_id = a.id)
         ORDER BY a.id LIMIT ?`,
    )
      .all(accountId, after, limit)
      .map((row) => ({
        id: row.id,
        key: row.key,
        name: row.name,
        enabled: row.enabled === 1,
        validFrom: row.valid_from,
        validTo: row.valid_to,
      }));
  }

  countLocalOnly(accountId: number): number {
    const row = this.#sql<[number], { count: number }>(
      `SELECT count(*) AS count FROM api_keys a
         WHERE a.account_id = ? AND NOT EXISTS (SELECT 1 FROM sync_keys k WHERE k.api_key_id = a.id)`,
    ).get(accountId);
    return row?.count ?? 0;
  }

  /**
   * Makes a key of the link's account a linked key whose create waits in the outbox (its
   * Idempotency-Key fixed now, so every retry is the same request). False when it was linked already.
   */
  queueCreate(
    linkId: number,
    apiKeyId: number,
    idempotencyKey: string,
    now: number,
    reason: AuditReason | null = null,
  ): boolean {
    if (this.#keyState.get(apiKeyId)) return false;
    this.insertKeyState({ apiKeyId, linkId, remoteKey: null, base: null });
    this.enqueue({ linkId, apiKeyId, kind: "create", fields: SYNCED_FIELDS, idempotencyKey, now, reason });
    return true;
  }

  // ---- outbox --------------------------------------------------------------------------

  enqueue(entry: {
    linkId: number;
    apiKeyId: number;
    kind: OutboxEntry["kind"];
    fields: readonly SyncedField[];
    idempotencyKey?: string;
    now: number;
    /** Why the change was made here (Keydesk-Action), sent with it to the remote. */
    reason?: AuditReason | null;
  }): void {
    this.#insertEntry.run({
      linkId: entry.linkId,
      apiKeyId: entry.apiKeyId,
      kind: entry.kind,
      fields: entryFieldsJson(entry.fields, entry.reason),
      idempotencyKey: entry.idempotencyKey ?? null,
      now: entry.now,
    });
  }

  entry(id: number): OutboxEntry | undefined {
    const row = this.#sql<[number], OutboxRow>("SELECT * FROM sync_outbox WHERE id = ?").get(id);
    return row && toEntry(row);
  }

  /**
   * Creates that were sent and not answered (attempts > 0, not failed, with the body sent): a
   * pull may find them on the remote. Read without loading the rest of the outbox.
   */
  uncertainCreates(linkId: number): OutboxEntry[] {
    return this.#sql<[number], OutboxRow>(
      `SELECT * FROM sync_outbox WHERE link_id = ? AND kind = 'create' AND failed = 0 AND attempts > 0
         AND fields -> '$.sentBody' IS NOT NULL ORDER BY id`,
    )
      .all(linkId)
      .map(toEntry)
      .filter((entry) => entry.sentBody !== null);
  }

  /** Up to `limit` entries of the link's outbox after entry `after`, in order. */
  entriesAfter(linkId: number, after: number, limit: number): OutboxEntry[] {
    return this.#sql<[number, number, number], OutboxRow>(
      "SELECT * FROM sync_outbox WHERE link_id = ? AND id > ? ORDER BY id LIMIT ?",
    )
      .all(linkId, after, limit)
      .map(toEntry);
  }

  /** The link's outbox in order, failed entries included. */
  entries(linkId: number): OutboxEntry[] {
    return this.#sql<[number], OutboxRow>("SELECT * FROM sync_outbox WHERE link_id = ? ORDER BY id")
      .all(linkId)
      .map(toEntry);
  }

  entriesOfKey(apiKeyId: number): OutboxEntry[] {
    return this.#sql<[number], OutboxRow>("SELECT * FROM sync_outbox WHERE api_key_id = ? ORDER BY id")
      .all(apiKeyId)
      .map(toEntry);
  }

  /** Records an attempt before it is sent: after a crash, a create with attempts > 0 may have reached the remote. */
  recordCreateAttempt(
    entryId: number,
    sentBody: Fields,
    fields: readonly SyncedField[],
    reason: AuditReason | null = null,
  ): void {
    this.#sql("UPDATE sync_outbox SET attempts = attempts + 1, fields = ? WHERE id = ?").run(
      createAttemptJson(sentBody, fields, reason),
      entryId,
    );
  }

  recordEntryAttempts(entryIds: readonly number[], error: string | null): void {
    const statement = this.#sql(
      "UPDATE sync_outbox SET attempts = attempts + 1, last_error = COALESCE(?, last_error) WHERE id = ?",
    );
    for (const id of entryIds) statement.run(error, id);
  }

  markFailed(entryIds: readonly number[], error: string): void {
    const statement = this.#sql("UPDATE sync_outbox SET failed = 1, last_error = ? WHERE id = ?");
    for (const id of entryIds) statement.run(error, id);
  }

  retry(entryId: number): void {
    this.#sql("UPDATE sync_outbox SET failed = 0, last_error = NULL WHERE id = ?").run(entryId);
  }

  deleteEntries(entryIds: readonly number[]): void {
    const statement = this.#sql("DELETE FROM sync_outbox WHERE id = ?");
    for (const id of entryIds) statement.run(id);
  }

  /**
   * Takes fields out of a key's pending update entries (sent, agreed, or taken from the remote);
   * entries left with no field are removed. Only entries up to `upToId` when given.
   */
  dropFields(apiKeyId: number, fields: readonly SyncedField[], upToId = Number.MAX_SAFE_INTEGER): void {
    if (fields.length === 0) return;
    const { deleted, rewritten } = droppedFields(this.entriesOfKey(apiKeyId), fields, upToId);
    this.deleteEntries(deleted);
    const statement = this.#sql("UPDATE sync_outbox SET fields = ? WHERE id = ?");
    for (const entry of rewritten) statement.run(entry.fields, entry.id);
  }
}
