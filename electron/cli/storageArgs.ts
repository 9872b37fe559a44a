import { DataKeyError, decodeDataKey, readKeyFile } from "../service/crypto/dataKey.ts";
import { checkDatabaseUrl, DatabaseUrlError } from "../service/databaseUrl.ts";
import type { StorageOptions } from "../service/openStorage.ts";
import { resolveDataDir, UsageError } from "./cliArgs.ts";

/**
 * Where a command finds the service's data: a PostgreSQL database (--database-url, else
 * KEY_SERVICE_DATABASE_URL) or a SQLite data directory (--data-dir, else KEY_SERVICE_DATA_DIR, else
 * the per-user folder). What the command line says wins over the environment: an explicit
 * --data-dir sets KEY_SERVICE_DATABASE_URL aside, as a flag overrides its variable everywhere, so a
 * URL exported for a team server does not break the SQLite commands run in the same shell.
 */

export const STORAGE_OPTIONS = {
  "data-dir": { type: "string" },
  "database-url": { type: "string" },
  "data-key-file": { type: "string" },
} as const;

/** The database URL from --database-url or KEY_SERVICE_DATABASE_URL (empty counts as unset), checked. */
export function databaseUrlOf(value: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const [origin, text] =
    value !== undefined
      ? ["--database-url", value]
      : env.KEY_SERVICE_DATABASE_URL
        ? ["KEY_SERVICE_DATABASE_URL", env.KEY_SERVICE_DATABASE_URL]
        : [];
  if (origin === undefined || text === undefined) return undefined;
  try {
    return checkDatabaseUrl(text, origin);
  } catch (error) {
    if (error instanceof DatabaseUrlError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * The data key for a database: KEY_SERVICE_DATA_KEY or --data-key-file (mode 0600, like a data
 * dir's data.key). There is no data dir to create one in, so one of them is required.
 */
function postgresDataKey(file: string | undefined, env: NodeJS.ProcessEnv): Buffer {
  if (file !== undefined && env.KEY_SERVICE_DATA_KEY)
    throw new UsageError("give the data key once: KEY_SERVICE_DATA_KEY or --data-key-file, not both");
  if (file !== undefined) {
    if (file.trim() === "") throw new UsageError("--data-key-file must not be empty");
    return readKeyFile(file);
  }
  if (env.KEY_SERVICE_DATA_KEY) return decodeDataKey(env.KEY_SERVICE_DATA_KEY, "KEY_SERVICE_DATA_KEY");
  throw new DataKeyError(
    "a database needs its data key: set KEY_SERVICE_DATA_KEY (32 bytes in base64 or hex, the same on every " +
      "replica) or give --data-key-file FILE (mode 0600); e.g. `openssl rand -base64 32` makes a new one",
  );
}

export function storageOptionsOf(
  values: { "data-dir"?: unknown; "database-url"?: unknown; "data-key-file"?: unknown },
  env: NodeJS.ProcessEnv,
): StorageOptions {
  const flagUrl = values["database-url"] as string | undefined;
  if (values["data-dir"] !== undefined && flagUrl !== undefined)
    throw new UsageError("give either --data-dir (SQLite) or --database-url (PostgreSQL), not both");
  const databaseUrl = values["data-dir"] !== undefined ? undefined : databaseUrlOf(flagUrl, env);
  const keyFile = values["data-key-file"] as string | undefined;
  if (databaseUrl === undefined) {
    if (keyFile !== undefined)
      throw new UsageError(
        "--data-key-file goes with a database URL (--database-url, or KEY_SERVICE_DATABASE_URL without --data-dir); a data dir keeps its key in data.key",
      );
    return {
      dataDir: resolveDataDir(values["data-dir"] as string | undefined, env),
      dataKeyBase64: env.KEY_SERVICE_DATA_KEY,
    };
  }
  return { databaseUrl, dataKey: postgresDataKey(keyFile, env) };
}

/**
 * check, backup, restore and keys export read SQLite files: given a database URL (or only
 * KEY_SERVICE_DATABASE_URL, no --data-dir) they refuse and name PostgreSQL's tools.
 */
export function refuseDatabaseUrl(
  command: string,
  values: { "data-dir"?: unknown; "database-url"?: unknown },
  env: NodeJS.ProcessEnv,
): void {
  const named =
    values["database-url"] !== undefined ||
    (values["data-dir"] === undefined && !!env.KEY_SERVICE_DATABASE_URL);
  if (!named) return;
  const tool =
    command === "keys export"
      ? "on PostgreSQL, read an account's keys through the API (GET /settings/1/accounts/_/api-keys, streamed)"
      : command === "restore"
        ? "restore a pg_dump file with pg_restore (or psql) into an empty database"
        : command === "backup"
          ? "back it up with pg_dump (e.g. pg_dump --format=custom --file=keydesk.dump URL); the data key is not in the dump, keep it apart"
          : "PostgreSQL checks its own data (amcheck, pg_dump to test it reads back)";
  throw new UsageError(
    `key-service ${command} works on a SQLite data dir, not on a PostgreSQL database: ${tool}`,
  );
}
