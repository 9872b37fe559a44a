import { createHash } from "node:crypto";
import pg from "pg";

/**
 * What the PostgreSQL repositories run their statements on: the pool (reads, outside any
 * transaction) or the one pooled client of a write. Every statement gets this store's type
 * parsers, whatever the pool was made with.
 */
export interface Sql {
  rows<R extends object>(text: string, values?: readonly unknown[]): Promise<R[]>;
  /** The number of rows the statement inserted, updated or deleted. */
  count(text: string, values?: readonly unknown[]): Promise<number>;
}

const INT8_OID = 20;

/** int8 (ids, milliseconds, counts) as numbers: every one the service keeps stays below 2^53. */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8_OID
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as "text")) as pg.CustomTypesConfig["getTypeParser"],
};

/** Statement texts and their prepared statements' names, the same on every connection. */
const PREPARED = new Map<string, string>();
let preparedSoFar = 0;
/**
 * Distinct statements prepared at most (per connection, and in all): the store's texts are a few
 * dozen, a list's filters make some more; past this, a statement is parsed each time it runs.
 */
const MAX_PREPARED = 256;

/**
 * The name a statement is prepared under. A statement runs as a named prepared statement, so each
 * connection parses it once (pg prepares it on first use) instead of every time it runs: the
 * database's CPU per create fell by about a third (bench/README.md, `postgres`).
 */
function preparedName(text: string): string | undefined {
  let name = PREPARED.get(text);
  if (name === undefined && PREPARED.size < MAX_PREPARED) {
    name = `keydesk_${++preparedSoFar}`;
    PREPARED.set(text, name);
  }
  return name;
}

/**
 * A prepared statement whose tables another replica changed since (a newer Keydesk's migration
 * during a rolling upgrade) may no longer return rows of the type it was prepared for. PostgreSQL
 * then refuses it, and the statement gets a new name, prepared anew on each connection.
 */
function isStalePlan(error: unknown): boolean {
  return (
    sqlState(error) === "0A000" && /cached plan must not change result type/.test((error as Error).message)
  );
}

export function sqlOn(target: pg.Pool | pg.PoolClient): Sql {
  const run = async (text: string, values: readonly unknown[] | undefined) => {
    const config = { text, values: values as unknown[] | undefined, types: TYPES };
    try {
      return await target.query({ ...config, name: preparedName(text) });
    } catch (error) {
      if (!isStalePlan(error)) throw error;
      PREPARED.delete(text);
      // Inside a write the transaction is lost: the write runs again (isRetryable), preparing it anew.
      if (!(target instanceof pg.Pool)) throw error;
      return target.query({ ...config, name: preparedName(text) });
    }
  };
  return {
    rows: async <R extends object>(text: string, values?: readonly unknown[]) =>
      (await run(text, values)).rows as R[],
    count: async (text, values) => (await run(text, values)).rowCount ?? 0,
  };
}

/**
 * Lends `work` a pooled client of its own and takes it back. While lent, a client has no listener
 * for its "error" event (the pool listens only while it is idle), and a connection that drops
 * under it (a server restart, a terminated backend, the network) emits one: unheard, it would end
 * the process. Here it is heard, the running query fails as it would anyway, and the client is
 * given back as broken, so the pool closes it instead of lending it again.
 */
async function withClient<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient, broken: (error: Error) => void) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost ??= error;
  };
  client.on("error", onError);
  try {
    return await work(client, onError);
  } finally {
    client.off("error", onError);
    client.release(lost);
  }
}

/**
 * Runs `work` in one transaction on a client of its own: committed when it resolves, rolled back
 * when it throws (the error is passed on). A client whose rollback failed has lost its connection:
 * the pool closes it instead of lending it again.
 */
export function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withClient(pool, async (client, broken) => {
    await client.query("BEGIN");
    try {
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(broken);
      throw error;
    }
  });
}

/** PostgreSQL's SQLSTATE of an error, when it is one of the server's. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

export const UNIQUE_VIOLATION = "23505";
/**
 * A write that lost a race PostgreSQL detected, or ran a prepared statement gone stale: running it
 * again is safe (nothing was committed) and usually succeeds.
 */
export function isRetryable(error: unknown): boolean {
  const state = sqlState(error);
  return state === "40001" || state === "40P01" || isStalePlan(error);
}

/**
 * A PostgreSQL advisory lock key (64 bits) for `name`, the same on every replica. Each kind of lock
 * names itself with a prefix of its own (`keydesk/<kind>/…`), so kinds never share a key.
 */
export function advisoryLockKey(name: string): string {
  return createHash("sha256").update(name).digest().readBigInt64BE(0).toString();
}
