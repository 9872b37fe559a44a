import pg from "pg";
import { DataKeyError } from "./crypto/dataKey.ts";
import { createSecretBox, isUnsealable } from "./crypto/secretBox.ts";
import { redactDatabaseUrl } from "./databaseUrl.ts";
import { KEY_CHECK } from "./dataDir.ts";
import type { KeyWriteJournal } from "./domain/keyWriteJournal.ts";
import { pagedLister } from "./keyListing.ts";
import type { ServiceStorage } from "./serviceStorage.ts";
import { migratePostgres } from "./store/postgres/migrate.ts";
import { PostgresKeyPages } from "./store/postgres/postgresKeyPages.ts";
import { claimMeta } from "./store/postgres/postgresMeta.ts";
import { postgresKeyCheck, upgradePostgresSealedValues } from "./store/postgres/postgresSealedUpgrade.ts";
import { PostgresStore } from "./store/postgres/postgresStore.ts";
import { opensAny } from "./store/sealedColumns.ts";

export interface PostgresServiceOptions {
  /** postgres:// or postgresql:// (checked by checkDatabaseUrl before). */
  databaseUrl: string;
  /** The data key (32 bytes), handed to every replica the same way: there is no data dir to keep one in. */
  dataKey: Buffer;
  /** Connections of this process's pool; 10 by default. */
  poolSize?: number;
}

/** How long a request waits for a connection before it is answered 503. */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * A pool of `max` connections to the database: where the service (and `migrate --from-sqlite`)
 * connect to PostgreSQL, so the driver is used by this module and the PostgreSQL store only.
 */
export function openPostgresPool(databaseUrl: string, max: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  // An idle connection the server ends must not end the process (PostgresStore adds one too).
  pool.on("error", () => {});
  return pool;
}

/**
 * Opens the service's storage on PostgreSQL: a pool, the schema migrated (safe when replicas start
 * at once), the data key checked against the value the first replica stored in `meta` (a replica
 * given another key is refused before it serves anything), the key lists read as keyset pages.
 */
export async function openPostgresService(options: PostgresServiceOptions): Promise<ServiceStorage> {
  const where = redactDatabaseUrl(options.databaseUrl);
  const pool = openPostgresPool(options.databaseUrl, options.poolSize ?? 10);
  try {
    const box = createSecretBox(options.dataKey);
    // Before the schema is upgraded: a replica given another key leaves an older database as it was.
    const cannotOpen = (error: unknown) =>
      new Error(`cannot open the database ${where}: ${(error as Error).message}`);
    const known = await postgresKeyCheck(pool).catch((error: unknown) => {
      throw cannotOpen(error);
    });
    const wrongKey = () =>
      new DataKeyError(
        `the data key given is not the one the database ${where} was created with; use the original key ` +
          "(its publicApiKey values cannot be read with another one)",
      );
    if (known.check !== undefined && known.check !== box.checkValue) throw wrongKey();
    if (known.check === undefined && known.sample && !opensAny(box, options.dataKey, known.sample))
      throw new DataKeyError(
        `the database ${where} holds sealed values but no record of its data key (meta ${KEY_CHECK} is missing: ` +
          "it was altered), and the data key given does not open them; use the original key",
      );
    await migratePostgres(pool).catch((error: unknown) => {
      throw cannotOpen(error);
    });
    const stored = await claimMeta(pool, KEY_CHECK, box.checkValue);
    if (stored !== box.checkValue) throw wrongKey();
    // Values an earlier Keydesk sealed with AES-256-GCM, once, by the first replica to start.
    await upgradePostgresSealedValues(pool, options.dataKey, box);
    const store = new PostgresStore(pool, box);
    return {
      store,
      keyJournals: new Set<KeyWriteJournal>(),
      keyLister: () => pagedLister(new PostgresKeyPages(pool, box)),
      failure: postgresFailure,
      shared: true,
      pool,
      // The store's LISTEN connection first: it is not one of the pool's.
      close: async () => {
        await store.close();
        await pool.end();
      },
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}

/** SQLSTATE classes and codes of a database the service cannot reach or use right now. */
const UNAVAILABLE_STATES = /^(08|53|57P0[1-3])/;
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
]);

/**
 * A request that failed because the database is out of reach (down, restarting, too many
 * connections, the network), or whose data was altered: its text (the HTTP layer answers 503, so a
 * load balancer or client retries). The text names neither the host nor the credentials; the log
 * has the details.
 * @internal Exported for tests.
 */
export function postgresFailure(error: unknown): string | undefined {
  if (isUnsealable(error))
    return (
      "a sealed value in the service's database does not open with the data key: the database was altered or " +
      "damaged; restore it from a backup (the service's log names the request)"
    );
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : "";
  const unreachable =
    (typeof code === "string" && (UNAVAILABLE_STATES.test(code) || NETWORK_CODES.has(code))) ||
    /^Connection terminated|timeout exceeded when trying to connect|connection error and is not queryable/i.test(
      message,
    );
  if (!unreachable) return undefined;
  return (
    "the service's database cannot be reached right now: this request may not have been carried out; try again shortly " +
    "(the service's log has the details)"
  );
}
