import type pg from "pg";
import { EXPIRING_SOON_MS, type KeySortField, type KeyStateFilter } from "../../../../shared/apiKeys.ts";
import type { SecretBox } from "../../crypto/secretBox.ts";
import type { ListedKey } from "../../domain/apiKeyRecords.ts";
import { dayStartHour } from "../../domain/keyUsage.ts";
import { publicApiKeyDigest, unsealPublicApiKeys } from "../apiKeyRows.ts";
import { countsOf } from "../keyUsageRows.ts";
import { COUNT_COLUMNS } from "../keyUsageSchema.ts";
import {
  type ApiKeyFilter,
  isSorted,
  type KeySort,
  type ListExtras,
  STATE_FILTER_SEGMENTS,
} from "../store.ts";
import { type Sql, sqlOn } from "./sql.ts";

/**
 * The key lists on PostgreSQL: keyset pages in the list's order, the filter applied by the
 * database, a page unsealed at a time. The same filters, orders and cursors as SQLite's
 * ApiKeyStore.scan/countStep (a cursor is the row id of the last key shown, in any order). No
 * worker thread: the rows are read by the database's process, and the service's thread only
 * unseals and writes a page between two reads.
 */

/**
 * Rows read per page of a whole list.
 * @internal Exported for tests.
 */
export const KEYSET_PAGE_ROWS = 1000;

/** Where a page starts: after this row, whose sort values are these. */
interface Position {
  id: number;
  values: unknown[];
}

/**
 * The values each order sorts by before the row id, as a function of the table's alias: the
 * expressions of the schema's keyset indexes (schema.ts), so that PostgreSQL reads through them.
 * name: SQLite's NOCASE order; validTo: no end after every date. state: the state's rank, then
 * validFrom (not yet valid) or validTo (SQLite sorts by one number combining the two: the same
 * order); no index holds that rank, so these are only a position's values, and the pages are read
 * by STATE_SEGMENTS.
 */
const SORT_VALUES: Record<KeySortField, (alias: string, now: Bound) => string[]> = {
  created: () => [],
  name: (t) => [`keydesk_ascii_fold(${t}.name) COLLATE "C"`],
  validTo: (t) => [`coalesce(${t}.valid_to, 9000000000000000)`],
  // As SQLite's: the state at `now` as the Keys table shows it (working, not yet valid, expired,
  // disabled), then validFrom for a key not valid yet (when it starts), validTo for the others.
  state: (t, now) => {
    const at = now();
    return [
      `(CASE WHEN NOT ${t}.enabled THEN 3 WHEN ${t}.valid_from > ${at} THEN 1 WHEN ${t}.valid_to <= ${at} THEN 2 ELSE 0 END)`,
      `(CASE WHEN ${t}.enabled AND ${t}.valid_from > ${at} THEN ${t}.valid_from ELSE coalesce(${t}.valid_to, 9000000000000000) END)`,
    ];
  },
};

/** The order a list is read in: an exact name or publicApiKey lookup is in creation order, as on SQLite. */
function orderOf(filter: ApiKeyFilter): KeySort {
  const indexed = filter.name !== undefined || filter.publicApiKey !== undefined;
  return !indexed && isSorted(filter.sort) ? filter.sort : { by: "created", desc: false };
}

/** `now` and `soon` add their parameter when called: a parameter the SQL never names has no type. */
type Bound = () => string;
const IN_WINDOW = (now: string) => `k.enabled AND (k.valid_from IS NULL OR k.valid_from <= ${now})`;
const STATE_CLAUSES: Record<KeyStateFilter, (now: Bound, soon: Bound) => string> = {
  disabled: () => "NOT k.enabled",
  enabled: (now) => {
    const at = now();
    return `${IN_WINDOW(at)} AND (k.valid_to IS NULL OR k.valid_to > ${at})`;
  },
  expired: (now) => {
    const at = now();
    return `${IN_WINDOW(at)} AND k.valid_to <= ${at}`;
  },
  "not-yet-valid": (now) => `k.enabled AND k.valid_from > ${now()}`,
  "expiring-soon": (now, soon) => {
    const at = now();
    return `${IN_WINDOW(at)} AND k.valid_to > ${at} AND k.valid_to < ${soon()}`;
  },
};

/** The rows and order of one range of a page: each as SQL, given the page's parameter maker. */
interface PageRange {
  rows?: (param: (value: unknown) => string) => string;
  sortValues: (param: (value: unknown) => string) => string[];
}

/** One state of the state sort: its rows at `now` and the value they are ordered by (then the id). */
interface StateSegment {
  rows: (now: Bound) => string;
  value: string;
}

const VALID_TO = "coalesce(k.valid_to, 9000000000000000)";
const STARTED = (now: string): string => `(k.valid_from IS NULL OR k.valid_from <= ${now})`;

/**
 * The state sort's segments in its ascending order, as SORT_VALUES.state ranks them: working,
 * expired and disabled keys are ranges of api_keys_by_account_state ((NOT enabled), validTo, id),
 * read in its order from a position by its row comparison; keys not yet valid by validFrom (few,
 * sorted). The rank itself moves with time, so no index holds the four in one order.
 */
const STATE_SEGMENTS: readonly StateSegment[] = [
  {
    rows: (now) => {
      const at = now();
      return `(NOT k.enabled) IS FALSE AND ${VALID_TO} > ${at} AND ${STARTED(at)}`;
    },
    value: VALID_TO,
  },
  { rows: (now) => `k.enabled AND k.valid_from > ${now()}`, value: "k.valid_from" },
  {
    rows: (now) => {
      const at = now();
      return `(NOT k.enabled) IS FALSE AND ${VALID_TO} <= ${at} AND ${STARTED(at)}`;
    },
    value: VALID_TO,
  },
  { rows: () => "(NOT k.enabled) IS TRUE", value: VALID_TO },
];

const DAY_COLUMNS = COUNT_COLUMNS.map((column) => `sum(h.${column})::bigint AS day_${column}`).join(", ");

interface ListedRow extends Record<string, unknown> {
  id: number;
  key: string;
  name: string;
  public_api_key_sealed: Buffer;
  allowed_ips: string | null;
  permissions: string;
  valid_from: number | null;
  valid_to: number | null;
  enabled: boolean;
  origin_created_at?: number | null;
}

export class PostgresKeyPages {
  readonly #sql: Sql;
  readonly #box: SecretBox;

  constructor(pool: pg.Pool, box: SecretBox) {
    this.#sql = sqlOn(pool);
    this.#box = box;
  }

  /** Up to `limit` matching keys after row `after` (0: from the start), and whether more follow. */
  async page(
    accountId: number,
    filter: ApiKeyFilter,
    after: number,
    limit: number,
    extras: ListExtras = {},
  ): Promise<{ keys: ListedKey[]; more: boolean }> {
    // One time for the page's position and rows: the state sort ranks by it.
    const at = { ...filter, now: filter.now ?? Date.now() };
    const position = after === 0 ? null : await this.#position(accountId, orderOf(at), after, at.now);
    if (position === undefined) return { keys: [], more: false };
    const { keys } = await this.#read(accountId, at, position, limit + 1, extras);
    return keys.length > limit ? { keys: keys.slice(0, limit), more: true } : { keys, more: false };
  }

  /** Every matching key in the list's order, a page of KEYSET_PAGE_ROWS keys at a time. */
  async *pages(
    accountId: number,
    filter: ApiKeyFilter,
    extras: ListExtras = {},
    signal?: AbortSignal,
  ): AsyncGenerator<ListedKey[]> {
    let position: Position | null = null;
    for (;;) {
      signal?.throwIfAborted();
      const step = await this.#read(accountId, filter, position, KEYSET_PAGE_ROWS, extras);
      if (step.keys.length > 0) yield step.keys;
      if (step.keys.length < KEYSET_PAGE_ROWS || step.last === null) return;
      position = step.last;
    }
  }

  async count(accountId: number, filter: ApiKeyFilter): Promise<number> {
    const values: unknown[] = [accountId];
    const [row] = await this.#sql.rows<{ n: number }>(
      `SELECT count(*) AS n FROM api_keys k WHERE ${this.#where(filter, values)}`,
      values,
    );
    return row?.n ?? 0;
  }

  /**
   * The sort values of the account's row a cursor names; undefined when the account has no such row
   * (gone, or another account's: the list then ends, as on SQLite, and nothing of that row is read).
   */
  async #position(accountId: number, order: KeySort, id: number, now: number): Promise<Position | undefined> {
    const values: unknown[] = [id, accountId];
    const expressions = SORT_VALUES[order.by]("k", () => `$${values.push(now)}::bigint`);
    if (expressions.length === 0) return { id, values: [] };
    const [row] = await this.#sql.rows<Record<string, unknown>>(
      `SELECT ${expressions.map((expression, index) => `${expression} AS s${index}`).join(", ")}
       FROM api_keys k WHERE k.id = $1 AND k.account_id = $2`,
      values,
    );
    return row && { id, values: expressions.map((_, index) => row[`s${index}`]) };
  }

  /**
   * Up to `limit` keys after a position in the filter's order. The state sort is read as its
   * STATE_SEGMENTS, one after the other from the position's state on (only the filter's state when
   * it has one), each a range of an index in its own order; any other order as one range.
   */
  async #read(
    accountId: number,
    filter: ApiKeyFilter,
    position: Position | null,
    limit: number,
    extras: ListExtras,
  ): Promise<{ keys: ListedKey[]; last: Position | null }> {
    const order = orderOf(filter);
    if (order.by !== "state") {
      const sortValues = (param: (value: unknown) => string) =>
        SORT_VALUES[order.by]("k", () => `${param(filter.now ?? Date.now())}::bigint`);
      return this.#readRange(accountId, filter, { sortValues }, position, limit, extras);
    }
    const now = filter.now ?? Date.now();
    const ranks = order.desc ? [3, 2, 1, 0] : [0, 1, 2, 3];
    const kept =
      filter.state === undefined
        ? ranks
        : ranks.filter((rank) => rank === STATE_FILTER_SEGMENTS[filter.state as KeyStateFilter]);
    // The position's row may be in a state the filter leaves out (it changed since the page): the
    // list goes on with the next state in the order the filter keeps.
    const from = position === null ? ranks[0] : Number(position.values[0]);
    const keys: ListedKey[] = [];
    let last: Position | null = null;
    for (const rank of kept.filter((state) => ranks.indexOf(state) >= ranks.indexOf(from as number))) {
      const segment = STATE_SEGMENTS[rank] as StateSegment;
      const range: PageRange = {
        rows: (param) => segment.rows(() => `${param(now)}::bigint`),
        sortValues: () => [segment.value],
      };
      const within =
        position !== null && rank === from ? { id: position.id, values: [position.values[1]] } : null;
      const step = await this.#readRange(accountId, filter, range, within, limit - keys.length, extras);
      keys.push(...step.keys);
      if (step.last) last = { id: step.last.id, values: [rank, ...step.last.values] };
      if (keys.length === limit) break;
    }
    return { keys, last };
  }

  /** Up to `limit` keys of one range after a position in its order (its sort values, then the id). */
  async #readRange(
    accountId: number,
    filter: ApiKeyFilter,
    range: PageRange,
    position: Position | null,
    limit: number,
    extras: ListExtras,
  ): Promise<{ keys: ListedKey[]; last: Position | null }> {
    const order = orderOf(filter);
    const values: unknown[] = [accountId];
    const param = (value: unknown) => `$${values.push(value)}`;
    const sortValues = range.sortValues(param);
    const where = [this.#where(filter, values)];
    if (range.rows) where.push(range.rows(param));
    if (position !== null) {
      const direction = order.desc ? "<" : ">";
      const bound = [...position.values.map(param), param(position.id)];
      where.push(`(${[...sortValues, "k.id"].join(", ")}) ${direction} (${bound.join(", ")})`);
    }
    const columns = [
      "k.id, k.key, k.name, k.public_api_key_sealed, k.allowed_ips, k.permissions, k.valid_from, k.valid_to, k.enabled",
      ...sortValues.map((expression, index) => `${expression} AS s${index}`),
    ];
    let from = "api_keys k";
    if (extras.created) columns.push("k.origin_created_at");
    if (extras.usageAt !== undefined) {
      columns.push("u.*", "d.*");
      from += ` LEFT JOIN key_usage u ON u.api_key_id = k.id
        LEFT JOIN LATERAL (SELECT ${DAY_COLUMNS} FROM key_usage_hours h
          WHERE h.api_key_id = k.id AND h.hour > ${param(dayStartHour(extras.usageAt))}) d ON true`;
    }
    const direction = order.desc ? "DESC" : "ASC";
    const rows = await this.#sql.rows<ListedRow>(
      `SELECT ${columns.join(", ")} FROM ${from} WHERE ${where.join(" AND ")}
       ORDER BY ${[...sortValues, "k.id"].map((expression) => `${expression} ${direction}`).join(", ")}
       LIMIT ${param(limit)}`,
      values,
    );
    const lastRow = rows.at(-1);
    const publicApiKeys = unsealPublicApiKeys(
      this.#box,
      rows.map((row) => ({ sealed: row.public_api_key_sealed, context: row.key })),
    );
    return {
      keys: rows.map((row, index) => this.#listed(row, publicApiKeys[index] as string, extras)),
      last: lastRow ? { id: lastRow.id, values: sortValues.map((_, index) => lastRow[`s${index}`]) } : null,
    };
  }

  #listed(row: ListedRow, publicApiKey: string, extras: ListExtras): ListedKey {
    const key: ListedKey = {
      id: row.id,
      key: row.key,
      name: row.name,
      publicApiKey,
      allowedIPsJson: row.allowed_ips,
      permissionsJson: row.permissions,
      validFrom: row.valid_from,
      validTo: row.valid_to,
      enabled: row.enabled,
    };
    if (extras.created) key.createdAt = row.origin_created_at ?? null;
    if (extras.usageAt !== undefined) {
      const day: Record<string, unknown> = {};
      for (const column of COUNT_COLUMNS) day[column] = row[`day_${column}`];
      // As SQLite's list reads them: 0 (never) is null, the addresses as stored.
      key.usage = {
        total: countsOf(row),
        last24Hours: countsOf(day),
        lastUsedAt: (row.last_used_at as number | null) || null,
        lastUsedFrom: (row.last_used_from as string | null) ?? null,
        lastRefusedAt: (row.last_refused_at as number | null) || null,
        lastRefusedFrom: (row.last_refused_from as string | null) ?? null,
      };
    }
    return key;
  }

  #where(filter: ApiKeyFilter, values: unknown[]): string {
    const param = (value: unknown) => `$${values.push(value)}`;
    const where = ["k.account_id = $1"];
    // PostgreSQL's text cannot hold NUL (a parameter with one is an error, not a mismatch), and no
    // stored name has one: such a filter matches nothing, as on SQLite.
    const text = [filter.name, filter.nameContains];
    if (text.some((value) => value?.includes("\0"))) where.push("FALSE");
    if (filter.enabled !== undefined) where.push(`k.enabled = ${param(filter.enabled)}`);
    if (filter.name !== undefined && !filter.name.includes("\0"))
      where.push(`k.name = ${param(filter.name)}`);
    if (filter.publicApiKey !== undefined) {
      where.push(`k.public_api_key_digest = ${param(publicApiKeyDigest(this.#box, filter.publicApiKey))}`);
    }
    if (filter.nameContains !== undefined && !filter.nameContains.includes("\0")) {
      // ICU's root lower case is JavaScript's toLowerCase, which SQLite's list uses (any letter, not ASCII only).
      where.push(
        `strpos(lower(k.name COLLATE "und-x-icu"), ${param(filter.nameContains.toLowerCase())}) > 0`,
      );
    }
    if (filter.permission !== undefined) {
      // permissions is a JSON array of names; a name in quotes matches that element only.
      where.push(`strpos(k.permissions, ${param(JSON.stringify(filter.permission))}) > 0`);
    }
    if (filter.state !== undefined) {
      const now = filter.now ?? Date.now();
      const clause = STATE_CLAUSES[filter.state](
        () => `${param(now)}::bigint`,
        () => `${param(now + EXPIRING_SOON_MS)}::bigint`,
      );
      where.push(`(${clause})`);
    }
    if (filter.unusedSince !== undefined) {
      // last_used_at 0 is "never": below any time, so a never-used key matches; a key younger than
      // the period has not been unused for it.
      const since = param(filter.unusedSince);
      where.push(
        `NOT EXISTS (SELECT 1 FROM key_usage n WHERE n.api_key_id = k.id AND n.last_used_at >= ${since})`,
        `coalesce(k.origin_created_at, k.created_at) <= ${since}`,
      );
    }
    return where.join(" AND ");
  }
}
