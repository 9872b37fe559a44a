import { existsSync } from "node:fs";
import { join } from "node:path";
import { redactDatabaseUrl } from "../service/databaseUrl.ts";
import { DATABASE_FILE, openDataDir } from "../service/dataDir.ts";
import { openPostgresPool } from "../service/postgresService.ts";
import { copySqliteToPostgres } from "../service/store/sqliteToPostgres.ts";
import { parseOptions, requireOption, UsageError } from "./cliArgs.ts";
import { databaseUrlOf } from "./storageArgs.ts";

/**
 * Moves a SQLite data dir into an empty PostgreSQL database, in one transaction checked before its
 * commit (counts per table, a sample of keys looked up by their publicApiKey). The sealed values go
 * as they are: the PostgreSQL replicas then run with the dir's data key.
 */
export async function migrateCommand(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const values = parseOptions(args, {
    "from-sqlite": { type: "string" },
    "database-url": { type: "string" },
  });
  const dir = requireOption(values["from-sqlite"] as string | undefined, "--from-sqlite");
  const databaseUrl = databaseUrlOf(values["database-url"] as string | undefined, env);
  if (databaseUrl === undefined)
    throw new UsageError("name the PostgreSQL database: --database-url URL or KEY_SERVICE_DATABASE_URL");
  // Opening a dir without a database would make an empty one (and a new data key): nothing to move.
  if (!existsSync(join(dir, DATABASE_FILE)))
    throw new Error(`${dir} holds no Keydesk data (no ${DATABASE_FILE}): nothing to migrate`);
  // Alone: a service still writing the dir would write what the copy then misses.
  const data = openDataDir({ dataDir: dir, dataKeyBase64: env.KEY_SERVICE_DATA_KEY, claim: "alone" });
  const pool = openPostgresPool(databaseUrl, 2);
  const where = redactDatabaseUrl(databaseUrl);
  try {
    process.stdout.write(
      `copying ${dir} into ${where} (one transaction: nothing is kept unless all of it is)\n`,
    );
    const report = await copySqliteToPostgres(data.db, pool, {
      box: data.box,
      onProgress: ({ table, copied, total }) => {
        if (copied === total) process.stdout.write(`  ${table}: ${total} rows\n`);
      },
    });
    const rows = Object.values(report.tables).reduce((sum, count) => sum + count, 0);
    process.stdout.write(
      `done: ${rows} rows in ${Object.keys(report.tables).length} tables, counts equal on both sides, ` +
        `${report.sampledKeys} keys looked up by their publicApiKey and found identical.\n` +
        `Start the replicas with --database-url and this dir's data key (${join(dir, "data.key")}, or the ` +
        "KEY_SERVICE_DATA_KEY it ran with) as KEY_SERVICE_DATA_KEY or --data-key-file.\n",
    );
  } finally {
    await pool.end();
    data.close();
  }
}
