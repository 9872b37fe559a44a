import type { NewAuditEntry } from "../../domain/auditEntries.ts";
import { type EntryRow, toDto } from "../auditRows.ts";
import type { AuditWrites } from "../store.ts";
import type { Sql } from "./sql.ts";

/**
 * A statement that appends `entries` in one round trip, in their order (one array per column,
 * unnested), as a data-modifying WITH clause: the caller's own statement follows it (`WITH … <select>`).
 */
export function appendedAuditEntries(
  entries: readonly NewAuditEntry[],
  firstParameter: number,
): { clause: string; values: unknown[] } {
  const $ = (offset: number) => `$${firstParameter + offset}`;
  return {
    clause: `appended AS (
      INSERT INTO audit_entries (at, account_id, actor, channel, action, reason, key, changes, address)
      SELECT * FROM unnest(${$(0)}::bigint[], ${$(1)}::bigint[], ${$(2)}::text[], ${$(3)}::text[], ${$(4)}::text[],
        ${$(5)}::text[], ${$(6)}::text[], ${$(7)}::text[], ${$(8)}::text[]))`,
    values: [
      entries.map((entry) => entry.at),
      entries.map((entry) => entry.accountId),
      entries.map((entry) => entry.actor),
      entries.map((entry) => entry.channel),
      entries.map((entry) => entry.action),
      entries.map((entry) => entry.reason),
      entries.map((entry) => entry.key),
      entries.map((entry) => JSON.stringify(entry.changes)),
      entries.map((entry) => entry.address),
    ],
  };
}

/**
 * The append-only audit history on PostgreSQL (the table refuses UPDATE and TRUNCATE itself).
 * Appends go to `appended`, which the write sends in one statement with its notifications just
 * before its commit (nothing in a write reads the history back).
 */
export function postgresAudit(sql: Sql, appended: NewAuditEntry[]): AuditWrites {
  return {
    async append(entry) {
      appended.push(entry);
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
