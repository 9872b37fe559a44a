import { type EntryRow, toDto } from "../auditStore.ts";
import type { AuditWrites } from "../store.ts";
import type { Sql } from "./sql.ts";

/** The append-only audit history on PostgreSQL (the table refuses UPDATE and TRUNCATE itself). */
export function postgresAudit(sql: Sql): AuditWrites {
  return {
    async append(entry) {
      await sql.count(
        `INSERT INTO audit_entries (at, account_id, actor, channel, action, reason, key, changes, address)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [
          entry.at,
          entry.accountId,
          entry.actor,
          entry.channel,
          entry.action,
          entry.reason,
          entry.key,
          JSON.stringify(entry.changes),
          entry.address,
        ],
      );
    },
    /** Newest first; one row further is read to know whether more follow (as auditStore.ts). */
    async page(query) {
      const values: unknown[] = [query.managerId, query.limit + 1];
      const conditions: string[] = [];
      const add = (column: string, operator: string, value: number | string | undefined) => {
        if (value === undefined) return;
        values.push(value);
        conditions.push(` AND e.${column} ${operator} $${values.length}`);
      };
      add("account_id", "=", query.accountId);
      add("key", "=", query.key);
      add("actor", "=", query.actor);
      add("at", ">=", query.from);
      add("at", "<", query.to);
      add("id", "<", query.before);
      const rows = await sql.rows<EntryRow>(
        `WITH RECURSIVE managed(id) AS (
           SELECT $1::bigint UNION SELECT a.id FROM accounts a JOIN managed m ON a.parent_id = m.id)
         SELECT e.id, e.at, a.account_key, e.actor, e.channel, e.action, e.reason, e.key, e.changes, e.address
         FROM audit_entries e JOIN accounts a ON a.id = e.account_id
         WHERE e.account_id IN (SELECT id FROM managed)${conditions.join("")}
         ORDER BY e.id DESC LIMIT $2`,
        values,
      );
      const more = rows.length > query.limit;
      const shown = more ? rows.slice(0, query.limit) : rows;
      return { entries: shown.map(toDto), lastId: more ? (shown.at(-1)?.id ?? null) : null };
    },
    prune: (before, batch) =>
      sql.count(
        `DELETE FROM audit_entries WHERE id IN
           (SELECT id FROM audit_entries WHERE at < $1 ORDER BY at LIMIT $2)`,
        [before, batch],
      ),
  };
}
