import { EXPIRING_SOON_MS, type KeySortField, type KeyStateFilter } from "../../../shared/apiKeys.ts";
import type { SecretBox } from "../crypto/secretBox.ts";
import type { ApiKeyFields, ListedKey, StoredApiKey } from "../domain/apiKeyRecords.ts";
import type { KeyGrant } from "../domain/keyAuthorization.ts";
import { dayStartHour, noCounts, REFUSAL_REASONS, type UsageCounts } from "../domain/keyUsage.ts";
import {
  type ApiKeyRow,
  type GrantRow,
  grantOf,
  publicApiKeyDigest,
  sealPublicApiKey,
  storedApiKeyOf,
} from "./apiKeyRows.ts";
import type { Db } from "./database.ts";
import { COUNT_COLUMNS } from "./keyUsageSchema.ts";
import {
  type ApiKeyFilter,
  isSorted,
  type KeyChangeListener,
  type KeySort,
  type ListExtras,
  STATE_FILTER_SEGMENTS,
} from "./store.ts";

type ListedRow = [
  id: number,
  key: string,
  name: string,
  sealedHex: string,
  allowedIPs: string | null,
  permissions: string,
  validFrom: number | null,
  validTo: number | null,
  enabled: number,
  ...extras: unknown[],
];

/**
 * The value each sort orders by, the row id breaking ties: the expressions of SORT_INDEXES, word
 * for word (or SQLite would not use them). validTo: no end sorts after every date. state: by the
 * key's state at @now as the Keys table shows it, working keys (enabled and valid now) first, then
 * not yet valid, expired, disabled; keys not yet valid by when they start (validFrom), the others
 * by validTo. That rank moves with time, so no index holds it whole: a state-sorted list is read as
 * four index ranges, one per state (STATE_SEGMENTS); this expression is the rank and the segment's
 * value in one number, what a position's state and place are read from.
 */
const SORT_EXPRESSIONS: Record<KeySortField, string> = {
  created: "k.id",
  name: "k.name COLLATE NOCASE",
  validTo: "coalesce(k.valid_to, 9000000000000000)",
  state: `CASE WHEN k.enabled = 0 THEN 30000000000000000 + coalesce(k.valid_to, 9000000000000000)
    WHEN k.valid_from > @now THEN 10000000000000000 + k.valid_from
    WHEN k.valid_to <= @now THEN 20000000000000000 + k.valid_to
    ELSE coalesce(k.valid_to, 9000000000000000) END`,
};

/**
 * Indexes the sorted lists page by (keyset). Made by the store that reads through them, on its
 * writable connection, when missing: they are query plans of this store's, not data, so they need
 * no migration (and a database that has them is still readable by an older Keydesk).
 */
export const SORT_INDEXES = `
  CREATE INDEX IF NOT EXISTS api_keys_by_account_name_nocase ON api_keys(account_id, name COLLATE NOCASE, id);
  CREATE INDEX IF NOT EXISTS api_keys_by_account_valid_to
    ON api_keys(account_id, coalesce(valid_to, 9000000000000000), id);
  CREATE INDEX IF NOT EXISTS api_keys_by_account_state
    ON api_keys(account_id, (1 - enabled) * 10000000000000000 + coalesce(valid_to, 9000000000000000), id);
  CREATE INDEX IF NOT EXISTS api_keys_by_account_valid_from
    ON api_keys(account_id, valid_from) WHERE enabled = 1 AND valid_from IS NOT NULL;
`;

/** `enabled` first, then validTo: the expression of api_keys_by_account_state, word for word. */
const ENABLED_THEN_VALID_TO = "(1 - k.enabled) * 10000000000000000 + coalesce(k.valid_to, 9000000000000000)";

/** One end of a part's values in its index: `value op bound`. */
interface ValueBound {
  op: "<" | "<=" | ">" | ">=";
  bound: string;
}

/**
 * One part of a sorted scan: the rows of one range of an index, ordered by `value` (then the row
 * id). `low` and `high` are the range's ends (none: the account's whole index), `rows` what the
 * index does not hold (checked on each row), `label` a name for its statements.
 */
interface SortPart {
  label: string;
  value: string;
  low?: ValueBound;
  high?: ValueBound;
  rows: string;
}

/** A state-sorted value is its state's rank times this, plus its value in its segment (SORT_EXPRESSIONS.state). */
const STATE_RANK_STEP = 10000000000000000n;

/** Whether a working or expired key's start has come (the rest of its state is its index value). */
const STARTED = "(k.valid_from IS NULL OR k.valid_from <= @now)";

/**
 * The state sort's four parts in its ascending order, each the rows of one state read through an
 * index range: working and expired keys are the enabled range of api_keys_by_account_state on
 * either side of @now (in validTo order, a key's start checked on its row), disabled keys its upper
 * range, and keys not valid yet come from api_keys_by_account_valid_from, soonest start first.
 */
const STATE_SEGMENTS: readonly SortPart[] = [
  {
    label: "state working",
    value: ENABLED_THEN_VALID_TO,
    low: { op: ">", bound: "@now" },
    high: { op: "<", bound: "10000000000000000" },
    rows: STARTED,
  },
  {
    label: "state not-yet-valid",
    value: "k.valid_from",
    low: { op: ">", bound: "@now" },
    rows: "k.enabled = 1",
  },
  { label: "state expired", value: ENABLED_THEN_VALID_TO, high: { op: "<=", bound: "@now" }, rows: STARTED },
  {
    label: "state disabled",
    value: ENABLED_THEN_VALID_TO,
    low: { op: ">=", bound: "10000000000000000" },
    rows: "1",
  },
];

/**
 * Where a range of a part starts in the scan's order: at the part's own end, just after the
 * position's row among the rows of its value (`run`: value = @fromValue, then ids beyond @after),
 * or at the values beyond the position's (`beyond`).
 */
type RangeStart = "part" | "run" | "beyond";
/**
 * Where it stops: at the part's own end, before the window's last value (`before`), or at the
 * window's last row among the rows of that value (`at`: value = @untilValue, ids up to @until).
 */
type RangeEnd = "part" | "before" | "at";

/**
 * The WHERE terms of a range of a part, each range one an index seeks to: a keyset position
 * `(value, id) > (@v, @id)` is written as two ranges, "value = @v AND id > @id" then "value > @v",
 * because SQLite does not seek by a row value whose first part is an expression: it would read a
 * run of equal values from its start to the position, once per step. A range has one bound a side,
 * so the one SQLite seeks by is the range's own. Null when the range is empty: from a run to
 * before the window's last value (the window ends in the run).
 */
function rangeTerms(part: SortPart, desc: boolean, start: RangeStart, end: RangeEnd): string | null {
  const [beyond, within] = desc ? ["<", ">="] : [">", "<="];
  const terms = [part.rows];
  if (start === "run") {
    if (end === "before") return null;
    terms.push(`${part.value} = @fromValue AND k.id ${beyond} @after`);
    if (end === "at") terms.push(`k.id ${within} @until`);
    return terms.join(" AND ");
  }
  if (end === "at") {
    // The window's last value is inside the part, after the position: the part's bounds hold.
    terms.push(`${part.value} = @untilValue AND k.id ${within} @until`);
    return terms.join(" AND ");
  }
  const [first, last] = desc ? [part.high, part.low] : [part.low, part.high];
  const from = start === "beyond" ? { op: beyond, bound: "@fromValue" } : first;
  const until = end === "before" ? { op: desc ? ">" : "<", bound: "@untilValue" } : last;
  for (const side of [from, until]) if (side) terms.push(`${part.value} ${side.op} ${side.bound}`);
  return terms.join(" AND ");
}

/** An enabled key inside its validity window at @now (valid_to exclusive, as App authorization). */
const IN_WINDOW = "k.enabled = 1 AND (k.valid_from IS NULL OR k.valid_from <= @now)";
const STATE_CLAUSES: Record<KeyStateFilter, string> = {
  disabled: "k.enabled = 0",
  enabled: `${IN_WINDOW} AND (k.valid_to IS NULL OR k.valid_to > @now)`,
  expired: `${IN_WINDOW} AND k.valid_to <= @now`,
  "not-yet-valid": "k.enabled = 1 AND k.valid_from > @now",
  "expiring-soon": `${IN_WINDOW} AND k.valid_to > @now AND k.valid_to < @soon`,
};

/** One step of a scan: the matching keys, and where the next step starts. */
export interface KeyScanStep {
  keys: ListedKey[];
  /** The row id the next step goes on after; null when the scan has reached the end. */
  after: number | null;
}

const SELECT = `SELECT k.id, k.key, k.account_id, a.account_key, k.name, k.public_api_key_sealed,
  k.allowed_ips, k.permissions, k.valid_from, k.valid_to, k.enabled, k.origin_created_at
  FROM api_keys k JOIN accounts a ON a.id = k.account_id`;

const LISTED_COLUMNS = `k.id, k.key, k.name, hex(k.public_api_key_sealed), k.allowed_ips, k.permissions, k.valid_from,
  k.valid_to, k.enabled`;
const USAGE_COUNTS = COUNT_COLUMNS.map((column) => `sum(h.${column})`).join(", ");
/**
 * The usage of each listed key read beside it: the totals and last calls by a join on key_usage's
 * primary key, the last 24 hours by a lookup in key_usage_hours' (key, hour) key. Only with
 * include=usage: a plain list reads nothing more than before.
 */
const USAGE_COLUMNS = `${COUNT_COLUMNS.map((column) => `u.${column}`).join(", ")}, u.last_used_at,
  u.last_used_from, u.last_refused_at, u.last_refused_from,
  (SELECT json_array(${USAGE_COUNTS}) FROM key_usage_hours h WHERE h.api_key_id = k.id AND h.hour > @dayStart)`;

/** The columns and joins of a listing with its extras. */
function listedFrom(extras: ListExtras): { columns: string; from: string } {
  const usage = extras.usageAt !== undefined;
  return {
    columns: `${LISTED_COLUMNS}${extras.created ? ", k.origin_created_at" : ""}${usage ? `, ${USAGE_COLUMNS}` : ""}`,
    from: `api_keys k${usage ? " LEFT JOIN key_usage u ON u.api_key_id = k.id" : ""}`,
  };
}

const extrasKey = (extras: ListExtras) =>
  `${extras.created ? "c" : ""}${extras.usageAt !== undefined ? "u" : ""}`;

function countsOf(values: readonly unknown[]): UsageCounts {
  const counts = noCounts();
  counts.allowed = Number(values[0] ?? 0);
  REFUSAL_REASONS.forEach((reason, index) => {
    counts.refused[reason] = Number(values[index + 1] ?? 0);
  });
  return counts;
}

/** API keys in SQLite; publicApiKey only ever stored sealed, found through its keyed digest. */
export class ApiKeyStore {
  readonly #db: Db;
  readonly #box: SecretBox;
  readonly #insert;
  readonly #update;
  readonly #byKey;
  readonly #byDigest;
  readonly #byId;
  readonly #keyTaken;
  readonly #keyIdOf;
  readonly #replaceSecret;
  readonly #grantByDigest;
  readonly #listeners = new Set<KeyChangeListener>();
  readonly #windowEnd;
  readonly #counts = new Map<string, ReturnType<Db["prepare"]>>();
  readonly #steps = new Map<string, ReturnType<Db["prepare"]>>();

  constructor(db: Db, box: SecretBox) {
    this.#db = db;
    this.#box = box;
    // The list worker's connection is read-only: the service's own made them before it started.
    if (!db.readonly) db.exec(SORT_INDEXES);
    this.#insert = db.prepare(
      `INSERT INTO api_keys (key, account_id, name, public_api_key_digest, public_api_key_sealed, allowed_ips,
        permissions, valid_from, valid_to, enabled, created_at, updated_at, origin_created_at)
       VALUES (@key, @accountId, @name, @digest, @sealed, @allowedIPs, @permissions, @validFrom, @validTo,
        @enabled, @now, @now, @createdAt) RETURNING id`,
    );
    this.#update = db.prepare(
      `UPDATE api_keys SET name = @name, allowed_ips = @allowedIPs, permissions = @permissions,
        valid_from = @validFrom, valid_to = @validTo, enabled = @enabled, updated_at = @now WHERE id = @id`,
    );
    this.#byKey = db.prepare<[string, number], ApiKeyRow>(`${SELECT} WHERE k.key = ? AND k.account_id = ?`);
    this.#byDigest = db.prepare<[Buffer], ApiKeyRow>(`${SELECT} WHERE k.public_api_key_digest = ?`);
    this.#byId = db.prepare<[number], ApiKeyRow>(`${SELECT} WHERE k.id = ?`);
    this.#keyTaken = db.prepare<[string], { id: number }>("SELECT id FROM api_keys WHERE key = ?");
    this.#keyIdOf = db.prepare<[number], { key: string }>("SELECT key FROM api_keys WHERE id = ?");
    this.#replaceSecret = db.prepare(
      `UPDATE api_keys SET public_api_key_digest = @digest, public_api_key_sealed = @sealed, updated_at = @now
       WHERE id = @id`,
    );
    this.#windowEnd = db.prepare<[number, number, number], { id: number }>(
      "SELECT id FROM api_keys WHERE account_id = ? AND id > ? ORDER BY id LIMIT 1 OFFSET ?",
    );
    // SQLite's lower() folds ASCII only; names are compared as the UI compares them.
    db.function("kd_name_contains", { deterministic: true }, (name, needle) =>
      String(name).toLowerCase().includes(String(needle)) ? 1 : 0,
    );
    this.#grantByDigest = db.prepare<[Buffer], GrantRow>(
      `SELECT key, account_id, permissions, allowed_ips, valid_from, valid_to, enabled
       FROM api_keys WHERE public_api_key_digest = ?`,
    );
  }

  onChange(listener: KeyChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(publicApiKey: string): void {
    if (this.#listeners.size === 0) return;
    const digest = publicApiKeyDigest(this.#box, publicApiKey);
    for (const listener of this.#listeners) listener(digest);
  }

  digestOf(publicApiKey: string): Buffer {
    return publicApiKeyDigest(this.#box, publicApiKey);
  }

  sealCursor(text: string, binding: string): Buffer {
    return this.#box.sealCursor(text, binding);
  }

  openCursor(sealed: Uint8Array, binding: string): string | undefined {
    return this.#box.openCursor(sealed, binding);
  }

  /** The authorization rules of the key with this digest, read without decrypting anything. */
  grantByDigest(digest: Buffer): KeyGrant | undefined {
    const row = this.#grantByDigest.get(digest);
    return row && grantOf(row);
  }

  #toStored(row: ApiKeyRow): StoredApiKey {
    return storedApiKeyOf(this.#box, row);
  }

  #columns(fields: ApiKeyFields) {
    return {
      name: fields.name,
      allowedIPs: fields.allowedIPs === null ? null : JSON.stringify(fields.allowedIPs),
      permissions: JSON.stringify(fields.permissions),
      validFrom: fields.validFrom,
      validTo: fields.validTo,
      enabled: fields.enabled ? 1 : 0,
    };
  }

  /**
   * `createdAt`: the key's real creation time, `now` (the default) for a key created here; null when
   * it is not known (a copy of a key created elsewhere), never the time of the copy.
   */
  insert(
    accountId: number,
    accountKey: string,
    identity: { key: string; publicApiKey: string },
    fields: ApiKeyFields,
    now: number,
    createdAt: number | null = now,
  ): StoredApiKey {
    const { id } = this.#insert.get({
      ...this.#columns(fields),
      key: identity.key,
      accountId,
      digest: publicApiKeyDigest(this.#box, identity.publicApiKey),
      sealed: sealPublicApiKey(this.#box, identity.publicApiKey, identity.key),
      now,
      createdAt,
    }) as { id: number };
    this.#changed(identity.publicApiKey);
    return { ...fields, id, accountId, accountKey, ...identity, createdAt };
  }

  update(stored: StoredApiKey, fields: ApiKeyFields, now: number): StoredApiKey {
    this.#update.run({ ...this.#columns(fields), id: stored.id, now });
    this.#changed(stored.publicApiKey);
    return { ...stored, ...fields };
  }

  /**
   * Gives a key another publicApiKey (a key created here and then on a sync remote takes the
   * remote's value, so that one value works on both). The old value stops working at once.
   */
  replacePublicApiKey(stored: StoredApiKey, publicApiKey: string, now: number): StoredApiKey {
    this.#replaceSecret.run({
      id: stored.id,
      digest: publicApiKeyDigest(this.#box, publicApiKey),
      sealed: sealPublicApiKey(this.#box, publicApiKey, stored.key),
      now,
    });
    this.#changed(stored.publicApiKey);
    this.#changed(publicApiKey);
    return { ...stored, publicApiKey };
  }

  byId(id: number): StoredApiKey | undefined {
    const row = this.#byId.get(id);
    return row && this.#toStored(row);
  }

  /** The key id (`key`) of a row, without decrypting anything. */
  keyIdOf(id: number): string | undefined {
    return this.#keyIdOf.get(id)?.key;
  }

  /** Whether any account has a key with this id (ids are unique across the service). */
  keyIdTaken(key: string): boolean {
    return this.#keyTaken.get(key) !== undefined;
  }

  get(accountId: number, key: string): StoredApiKey | undefined {
    const row = this.#byKey.get(key, accountId);
    return row && this.#toStored(row);
  }

  /** The key with this publicApiKey, in any account. */
  findByPublicApiKey(publicApiKey: string): StoredApiKey | undefined {
    const row = this.#byDigest.get(publicApiKeyDigest(this.#box, publicApiKey));
    return row && this.#toStored(row);
  }

  /**
   * One bounded step of a scan in creation order: at most `limit` matching keys with a row id
   * above `after`, looking at no more than `window` rows of the account (so a filter that
   * matches little never makes one step read the whole account). Lookups by exact name or
   * publicApiKey go through their index and finish in one step.
   */
  scan(
    accountId: number,
    filter: ApiKeyFilter,
    after: number,
    limit: number,
    window: number,
    extras: ListExtras = {},
  ): KeyScanStep {
    const { where, params } = this.#where(accountId, filter);
    const listed = listedFrom(extras);
    const listParams = {
      // The state sort ranks at the filter's time, as PostgreSQL's does (the state filter sets it too).
      ...(filter.now !== undefined && { now: filter.now }),
      ...params,
      ...(extras.usageAt !== undefined && { dayStart: dayStartHour(extras.usageAt) }),
    };
    const indexed = filter.name !== undefined || filter.publicApiKey !== undefined;
    if (isSorted(filter.sort) && !indexed) {
      return this.#sortedScan(
        accountId,
        filter,
        filter.sort,
        where,
        listParams,
        after,
        limit,
        window,
        extras,
      );
    }
    const narrowing =
      indexed ||
      filter.nameContains !== undefined ||
      filter.permission !== undefined ||
      filter.state !== undefined ||
      filter.unusedSince !== undefined;
    // Without a narrowing filter every row matches, so the LIMIT alone bounds the rows a step
    // reads; the window's end is looked up only when a filter may skip most rows.
    const { upTo, last } =
      indexed || !narrowing
        ? { upTo: Number.MAX_SAFE_INTEGER, last: true }
        : this.#window(accountId, after, window);
    const statement = this.#statement(
      this.#steps,
      `${extrasKey(extras)} ${where}`,
      () =>
        `SELECT ${listed.columns} FROM ${listed.from}
       WHERE ${where} AND k.id > @after AND k.id <= @upTo ORDER BY k.id LIMIT @limit`,
      true,
    );
    // Rows as arrays (raw): no object per row before the one the list needs.
    const rows = statement.all({ ...listParams, after, upTo, limit }) as ListedRow[];
    const keys = rows.map((row) => this.#listed(row, extras));
    if (rows.length === limit) return { keys, after: (keys[keys.length - 1] as ListedKey).id };
    return { keys, after: last ? null : upTo };
  }

  /**
   * A listed row as a key, its publicApiKey opened from the hex() text the row holds: a Buffer
   * made per row by the driver costs more than all the row's other columns, and decryptHex decodes
   * the text into a buffer of its own without making one.
   */
  #listed(row: ListedRow, extras: ListExtras): ListedKey {
    const key: ListedKey = {
      id: row[0],
      key: row[1],
      name: row[2],
      publicApiKey: this.#box.decryptHex(row[3], row[1]),
      allowedIPsJson: row[4],
      permissionsJson: row[5],
      validFrom: row[6],
      validTo: row[7],
      enabled: row[8] === 1,
    };
    let next = 9;
    if (extras.created) key.createdAt = row[next++] as number | null;
    if (extras.usageAt !== undefined) {
      const values = row.slice(next);
      const at = (index: number) => (values[index] as number | null) || null;
      const day = values[COUNT_COLUMNS.length + 4] as string | null;
      key.usage = {
        total: countsOf(values),
        last24Hours: countsOf(day === null ? [] : (JSON.parse(day) as unknown[])),
        lastUsedAt: at(COUNT_COLUMNS.length),
        lastUsedFrom: values[COUNT_COLUMNS.length + 1] as string | null,
        lastRefusedAt: at(COUNT_COLUMNS.length + 2),
        lastRefusedFrom: values[COUNT_COLUMNS.length + 3] as string | null,
      };
    }
    return key;
  }

  /**
   * A step of a scan in a sort's order, by keyset: a position is a row (its sort value, then its
   * id), so `after` stays a row id and cursors stay what they are. The step looks at no more than
   * `window` rows of a part in that order (through the sort's index), like the unsorted scan. A
   * sort is read as one or more parts, each a range of rows in one index order: the state sort as
   * its four STATE_SEGMENTS, from the state of the position's row on; every other sort as one
   * part. Each read is of a range the index seeks to (rangeTerms), so a step reads the rows of its
   * window and no run of equal values before them.
   */
  #sortedScan(
    accountId: number,
    filter: ApiKeyFilter,
    sort: KeySort,
    where: string,
    params: Record<string, unknown>,
    after: number,
    limit: number,
    window: number,
    extras: ListExtras,
  ): KeyScanStep {
    // The state sort ranks by the state at one time for the whole step (unused by other sorts).
    const now = (params.now as number | undefined) ?? Date.now();
    const start =
      sort.by === "state"
        ? this.#statePosition(accountId, sort.desc, filter.state, after, now)
        : {
            parts: [{ label: sort.by, rows: "1", value: SORT_EXPRESSIONS[sort.by] }],
            positioned: after !== 0,
            fromValue: this.#positionValue(sort.by, accountId, after, now),
          };
    // A row that is gone, or another account's, ends the list: its values position nothing.
    if (start === null || start.fromValue === undefined) return { keys: [], after: null };
    const { parts, positioned, fromValue } = start;
    const ranges: { part: SortPart; start: RangeStart }[] = [];
    for (const [at, part] of parts.entries()) {
      if (at === 0 && positioned) ranges.push({ part, start: "run" }, { part, start: "beyond" });
      else ranges.push({ part, start: "part" });
    }
    const order = sort.desc ? "DESC" : "ASC";
    const keys: ListedKey[] = [];
    for (const range of ranges) {
      const { label, value } = range.part;
      const whole = rangeTerms(range.part, sort.desc, range.start, "part") as string;
      // A range of one value is in id order: ordered by the value too, SQLite would sort the
      // whole rest of the run instead of reading it in its index's order.
      const orderBy = (ends: RangeEnd) =>
        range.start === "run" || ends === "at" ? `k.id ${order}` : `${value} ${order}, k.id ${order}`;
      // The window's last row in this order; without one, the range ends within the window.
      const windowEnd = this.#statement(
        this.#steps,
        `window ${label} ${order} ${range.start}`,
        () =>
          `SELECT k.id, ${value} AS v FROM api_keys k WHERE k.account_id = @accountId AND ${whole}
           ORDER BY ${orderBy("part")} LIMIT 1 OFFSET @offset`,
      );
      windowEnd.safeIntegers(true);
      const end = windowEnd.get({ accountId, after, fromValue, now, offset: window - 1 }) as
        | { id: bigint; v: unknown }
        | undefined;
      // Up to the window's last row: the values before its value, then its own up to its id.
      const reads: RangeEnd[] = end === undefined ? ["part"] : ["before", "at"];
      for (const ends of reads) {
        const terms = rangeTerms(range.part, sort.desc, range.start, ends);
        if (terms === null) continue;
        const listed = listedFrom(extras);
        const statement = this.#statement(
          this.#steps,
          `${extrasKey(extras)} ${where} sorted ${label} ${order} ${range.start} ${ends}`,
          () =>
            `SELECT ${listed.columns} FROM ${listed.from}
           WHERE ${where} AND ${terms} ORDER BY ${orderBy(ends)} LIMIT @limit`,
          true,
        );
        const rows = statement.all({
          ...params,
          now,
          after,
          fromValue,
          limit: limit - keys.length,
          ...(end && { until: Number(end.id), untilValue: end.v }),
        }) as ListedRow[];
        for (const row of rows) keys.push(this.#listed(row, extras));
        if (keys.length === limit) return { keys, after: (keys[keys.length - 1] as ListedKey).id };
      }
      if (end !== undefined) return { keys, after: Number(end.id) };
    }
    return { keys, after: null };
  }

  /**
   * Where a state-sorted step starts: the STATE_SEGMENTS left to read in the sort's order, from
   * the position's state on (only the filter's state when the list is filtered by one: the others
   * hold none of its keys), whether the first is read from the position, and the position's value
   * there; null when the position's row is gone.
   */
  #statePosition(
    accountId: number,
    desc: boolean,
    state: KeyStateFilter | undefined,
    after: number,
    now: number,
  ): { parts: SortPart[]; positioned: boolean; fromValue: unknown } | null {
    const order = desc ? [3, 2, 1, 0] : [0, 1, 2, 3];
    const ranks = state === undefined ? order : order.filter((rank) => rank === STATE_FILTER_SEGMENTS[state]);
    const partsFrom = (list: number[]) => list.map((rank) => STATE_SEGMENTS[rank] as SortPart);
    if (after === 0) return { parts: partsFrom(ranks), positioned: false, fromValue: null };
    const value = this.#positionValue("state", accountId, after, now);
    if (value === undefined) return null;
    const rank = Number((value as bigint) / STATE_RANK_STEP);
    const within = (value as bigint) % STATE_RANK_STEP;
    // The position's row may be in a state the filter leaves out (it changed since the page):
    // the list goes on with the next state in the order the filter keeps.
    const left = ranks.filter((kept) => order.indexOf(kept) >= order.indexOf(rank));
    // The position's value in its segment's own expression: validFrom for a key not valid yet,
    // else validTo, plus the 1e16 of a disabled key.
    return {
      parts: partsFrom(left),
      positioned: left[0] === rank,
      fromValue: rank === 3 ? within + STATE_RANK_STEP : within,
    };
  }

  /**
   * The value a row of the account sorts by (a position of the keyset); undefined when the account
   * has no such row. Creation order's value is the id itself: no row is read.
   */
  #positionValue(by: KeySortField, accountId: number, id: number, now: number): unknown {
    if (id === 0) return null;
    if (by === "created") return id;
    const statement = this.#statement(
      this.#steps,
      `value ${by}`,
      () =>
        `SELECT ${SORT_EXPRESSIONS[by]} AS v FROM api_keys k WHERE k.id = @id AND k.account_id = @accountId`,
    );
    statement.safeIntegers(true);
    const row = statement.get({ id, accountId, now }) as { v: unknown } | undefined;
    return row?.v;
  }

  /** How many keys of the account a filter matches, counting at most `window` rows per step. */
  countStep(
    accountId: number,
    filter: ApiKeyFilter,
    after: number,
    window: number,
  ): { count: number; after: number | null } {
    const { where, params } = this.#where(accountId, filter);
    if (filter.name !== undefined || filter.publicApiKey !== undefined) {
      const statement = this.#statement(
        this.#counts,
        where,
        (clause) => `SELECT count(*) AS n FROM api_keys k WHERE ${clause}`,
      );
      return { count: (statement.get(params) as { n: number }).n, after: null };
    }
    const { upTo, last } = this.#window(accountId, after, window);
    const statement = this.#statement(
      this.#counts,
      `${where} AND k.id > @after AND k.id <= @upTo`,
      (clause) => `SELECT count(*) AS n FROM api_keys k WHERE ${clause}`,
    );
    const { n } = statement.get({ ...params, after, upTo }) as { n: number };
    return { count: n, after: last ? null : upTo };
  }

  /**
   * The row id ending the account's next `rows` rows after `after`, or null when fewer are left:
   * the bounds of a list read in windows by several threads at once.
   */
  windowEnd(accountId: number, after: number, rows: number): number | null {
    return this.#windowEnd.get(accountId, after, rows - 1)?.id ?? null;
  }

  /** The row id ending the account's next `rows` rows after `after`; `last` when fewer are left. */
  #window(accountId: number, after: number, rows: number): { upTo: number; last: boolean } {
    const end = this.#windowEnd.get(accountId, after, rows - 1);
    return end === undefined ? { upTo: Number.MAX_SAFE_INTEGER, last: true } : { upTo: end.id, last: false };
  }

  #where(accountId: number, filter: ApiKeyFilter): { where: string; params: Record<string, unknown> } {
    const where = ["k.account_id = @accountId"];
    const params: Record<string, unknown> = { accountId };
    if (filter.enabled !== undefined) {
      where.push("k.enabled = @enabled");
      params.enabled = filter.enabled ? 1 : 0;
    }
    if (filter.name !== undefined) {
      where.push("k.name = @name");
      params.name = filter.name;
    }
    if (filter.publicApiKey !== undefined) {
      where.push("k.public_api_key_digest = @digest");
      params.digest = publicApiKeyDigest(this.#box, filter.publicApiKey);
    }
    if (filter.nameContains !== undefined) {
      where.push("kd_name_contains(k.name, @nameContains)");
      params.nameContains = filter.nameContains.toLowerCase();
    }
    if (filter.permission !== undefined) {
      // permissions is a JSON array of names; a name in quotes matches that element only.
      where.push("instr(k.permissions, @permission) > 0");
      params.permission = JSON.stringify(filter.permission);
    }
    if (filter.state !== undefined) {
      where.push(`(${STATE_CLAUSES[filter.state]})`);
      params.now = filter.now ?? Date.now();
      if (filter.state === "expiring-soon") params.soon = (params.now as number) + EXPIRING_SOON_MS;
    }
    if (filter.unusedSince !== undefined) {
      // last_used_at 0 is "never" (keyUsageStore.ts): below any time, so a never-used key matches.
      // A key younger than the period has not been unused for it: created (where that is not
      // known, come to this service) at or before the period's start.
      where.push(
        "NOT EXISTS (SELECT 1 FROM key_usage n WHERE n.api_key_id = k.id AND n.last_used_at >= @unusedSince)",
        "coalesce(k.origin_created_at, k.created_at) <= @unusedSince",
      );
      params.unusedSince = filter.unusedSince;
    }
    return { where: where.join(" AND "), params };
  }

  /** Statements by their WHERE clause: a few filter combinations, each prepared once. */
  #statement(
    cache: Map<string, ReturnType<Db["prepare"]>>,
    where: string,
    sql: (where: string) => string,
    raw = false,
  ) {
    let statement = cache.get(where);
    if (!statement) {
      statement = this.#db.prepare(sql(where));
      if (raw) statement.raw(true);
      cache.set(where, statement);
    }
    return statement;
  }
}
