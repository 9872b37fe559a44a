import type pg from "pg";
import type { MetaWrites, StoreHealth } from "../store.ts";
import { type Sql, sqlOn } from "./sql.ts";

/** Named values of the service's own (the data key's check value), one row each. */
export function postgresMeta(sql: Sql): MetaWrites {
  return {
    read: async (name) =>
      (await sql.rows<{ value: string }>("SELECT value FROM meta WHERE name = $1", [name]))[0]?.value,
    write: async (name, value) => {
      await sql.count(
        "INSERT INTO meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        [name, value],
      );
    },
  };
}

/** How long readiness waits for the database before it says "not ready". */
const READY_TIMEOUT_MS = 2_000;

/**
 * Readiness on PostgreSQL: the same question as SQLite's (answerReadinessQuery): the accounts and
 * keys tables answer a read, within READY_TIMEOUT_MS (a database that hangs is not ready either).
 */
export function postgresHealth(sql: Sql): StoreHealth {
  return {
    ready: async () => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the database did not answer within ${READY_TIMEOUT_MS} ms`)),
          READY_TIMEOUT_MS,
        );
      });
      try {
        await Promise.race([
          sql.rows("SELECT (SELECT max(id) FROM accounts) AS account, (SELECT max(id) FROM api_keys) AS key"),
          late,
        ]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * Writes a meta value unless one is there, and answers the stored one: of two replicas starting
 * on an empty database at once, the first commit wins and the other reads it (an upsert would let
 * the second replace the first's, e.g. a data key check made with another key).
 */
export async function claimMeta(pool: pg.Pool, name: string, value: string): Promise<string> {
  const sql = sqlOn(pool);
  await sql.count("INSERT INTO meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", [
    name,
    value,
  ]);
  const stored = await postgresMeta(sql).read(name);
  if (stored === undefined) throw new Error(`the meta value ${name} vanished right after it was written`);
  return stored;
}
