import type { AuditPage, AuditQuery, NewAuditEntry } from "../domain/auditEntries.ts";
import { type EntryRow, toDto } from "./auditRows.ts";
import type { Db } from "./database.ts";

/** The append-only audit history (table audit_entries). Entries leave only by age (prune). */
export class AuditStore {
  readonly #db: Db;
  readonly #insert;
  readonly #prune;
  readonly #queries = new Map<string, ReturnType<Db["prepare"]>>();

  constructor(db: Db) {
    this.#db = db;
    this.#insert = db.prepare(
      `INSERT INTO audit_entries (at, account_id, actor, channel, action, reason, key, changes, address)
       VALUES (@at, @accountId, @actor, @channel, @action, @reason, @key, @changes, @address)`,
    );
    this.#prune = db.prepare<[number, number]>(
      `DELETE FROM audit_entries WHERE id IN
         (SELECT id FROM audit_entries WHERE at < ? ORDER BY at LIMIT ?)`,
    );
  }

  /** Call inside the transaction of the change it records: both commit, or neither. */
  append(entry: NewAuditEntry): void {
    this.#insert.run({ ...entry, changes: JSON.stringify(entry.changes) });
  }

  /** Newest first; one row further is read to know whether more follow. */
  page(query: AuditQuery): AuditPage {
    const conditions: string[] = [];
    const params: Record<string, number | string> = { managerId: query.managerId, limit: query.limit + 1 };
    const add = (condition: string, name: string, value: number | string | undefined) => {
      if (value === undefined) return;
      conditions.push(condition);
      params[name] = value;
    };
    add("e.account_id = @accountId", "accountId", query.accountId);
    add("e.key = @key", "key", query.key);
    add("e.actor = @actor", "actor", query.actor);
    add("e.at >= @from", "from", query.from);
    add("e.at < @to", "to", query.to);
    add("e.id < @before", "before", query.before);
    const where = conditions.map((condition) => ` AND ${condition}`).join("");
    let statement = this.#queries.get(where);
    if (!statement) {
      statement = this.#db.prepare(
        `WITH RECURSIVE managed(id) AS (
           SELECT @managerId UNION SELECT a.id FROM accounts a JOIN managed m ON a.parent_id = m.id)
         SELECT e.id, e.at, a.account_key, e.actor, e.channel, e.action, e.reason, e.key, e.changes, e.address
         FROM audit_entries e JOIN accounts a ON a.id = e.account_id
         WHERE e.account_id IN managed${where}
         ORDER BY e.id DESC LIMIT @limit`,
      );
      this.#queries.set(where, statement);
    }
    const rows = statement.all(params) as EntryRow[];
    const more = rows.length > query.limit;
    const shown = more ? rows.slice(0, query.limit) : rows;
    return { entries: shown.map(toDto), lastId: more ? (shown.at(-1)?.id ?? null) : null };
  }

  /** Deletes at most `batch` entries older than `before`; answers how many it deleted. */
  prune(before: number, batch: number): number {
    return this.#prune.run(before, batch).changes;
  }
}
