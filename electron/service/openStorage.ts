import { type DataDirOptions, openDataDir } from "./dataDir.ts";
import type { PostgresServiceOptions } from "./postgresService.ts";
import type { ServiceStorage } from "./serviceStorage.ts";

/** Where the data lives: a SQLite data directory, or a PostgreSQL database (`databaseUrl`). */
export type StorageOptions = DataDirOptions | PostgresServiceOptions;

/**
 * Opens the storage the options name. The PostgreSQL client is loaded only for a database URL: a
 * command on a data dir (`account list`) does not load it.
 */
export async function openStorage(options: StorageOptions): Promise<ServiceStorage> {
  if (!("databaseUrl" in options)) return openDataDir(options);
  const { openPostgresService } = await import("./postgresService.ts");
  return openPostgresService(options);
}
