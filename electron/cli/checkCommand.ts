import { join } from "node:path";
import { decodeDataKey, readKeyFile } from "../service/crypto/dataKey.ts";
import { fileExists } from "../service/crypto/privateFile.ts";
import { createSecretBox } from "../service/crypto/secretBox.ts";
import { DATA_KEY_FILE, DATABASE_FILE } from "../service/dataDir.ts";
import { checkDatabase, damagedText, isCorruption } from "../service/store/databaseHealth.ts";
import {
  type Db,
  openDatabaseFile,
  pageCount,
  storedKeyCheck,
  tableNames,
  tableProblems,
} from "../service/store/sqliteFile.ts";
import { checkSealedValues } from "../service/store/sqliteReseal.ts";
import { parseOptions, resolveDataDir } from "./cliArgs.ts";
import { refuseDatabaseUrl } from "./storageArgs.ts";

/** What one part of the check found: ok, or the problem in words. */
interface Finding {
  part: string;
  ok: boolean;
  text: string;
}

/**
 * `key-service check`: SQLite's full integrity check of the data directory's database (every page,
 * b-tree, free list, and every index against its table) and whether the data key opens it (its
 * check value, then every sealed value). Read
 * only, so it may run beside a running service. Exits 1 when anything is wrong.
 */
export async function checkCommand(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const values = parseOptions(args, { "data-dir": { type: "string" }, "database-url": { type: "string" } });
  refuseDatabaseUrl("check", values, env);
  const dataDir = resolveDataDir(values["data-dir"] as string | undefined, env);
  const file = join(dataDir, DATABASE_FILE);
  if (!fileExists(file)) throw new Error(`there is no database at ${file}: nothing to check`);
  const findings = checkFile(file, dataDir, env);
  process.stdout.write(`${file}\n${findings.map((f) => `  ${f.part}: ${f.text}`).join("\n")}\n`);
  if (findings.some((finding) => !finding.ok)) {
    process.stderr.write(
      `key-service: ${damagedText(
        file,
        findings
          .filter((f) => !f.ok)
          .map((f) => f.part)
          .join(" and "),
      )}\n`,
    );
    process.exitCode = 1;
  }
}

function checkFile(file: string, dataDir: string, env: NodeJS.ProcessEnv): Finding[] {
  let db: Db;
  try {
    db = openDatabaseFile(file, { readonly: true });
  } catch (error) {
    return [{ part: "integrity", ok: false, text: (error as Error).message }];
  }
  try {
    const sound = integrity(db);
    // A damaged file's values are not read: what is damaged is said once, under integrity.
    return [sound, dataKey(db, dataDir, env, sound.ok)];
  } finally {
    db.close();
  }
}

function integrity(db: Db): Finding {
  const started = performance.now();
  try {
    const problems = checkDatabase(db, { full: true, limit: 100 });
    const pages = pageCount(db);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (problems.length === 0)
      return { part: "integrity", ok: true, text: `ok (${pages} pages checked in ${seconds} s)` };
    // SQLite names b-trees by their root page: the tables' names say what is damaged.
    return {
      part: "integrity",
      ok: false,
      text: `${problems.length} problem(s):\n    ${[...problems, ...damagedTables(db)].join("\n    ")}`,
    };
  } catch (error) {
    if (!isCorruption(error)) throw error;
    // SQLite gave up on the whole file: ask table by table, so the report names what is damaged.
    return {
      part: "integrity",
      ok: false,
      text: `damaged: ${(error as Error).message}:\n    ${damagedTables(db).join("\n    ")}`,
    };
  }
}

/**
 * Each table's own integrity check (its b-tree and its indexes), for when the whole-file check
 * stopped at the first damaged page: the tables that are damaged, with what SQLite found.
 */
function damagedTables(db: Db): string[] {
  let tables: string[];
  try {
    tables = tableNames(db);
  } catch (error) {
    if (!isCorruption(error)) throw error;
    return [`the file's header or table list cannot be read (${(error as Error).message})`];
  }
  const damaged: string[] = [];
  for (const table of tables) {
    try {
      const problems = tableProblems(db, table);
      if (problems.length > 0)
        damaged.push(`table ${table}: ${problems.slice(0, 3).join("; ").replace(/\s+/g, " ")}`);
    } catch (error) {
      if (!isCorruption(error)) throw error;
      damaged.push(`table ${table}: ${(error as Error).message}`);
    }
  }
  return damaged.length > 0
    ? damaged
    : ["no single table is damaged: the damage is in the file's free space or page list"];
}

function dataKey(db: Db, dataDir: string, env: NodeJS.ProcessEnv, readValues: boolean): Finding {
  const part = "data key";
  try {
    const check = storedKeyCheck(db);
    if (check === undefined)
      return { part, ok: true, text: "none yet (the database holds no sealed secret)" };
    const origin =
      env.KEY_SERVICE_DATA_KEY !== undefined ? "KEY_SERVICE_DATA_KEY" : join(dataDir, DATA_KEY_FILE);
    const key =
      env.KEY_SERVICE_DATA_KEY !== undefined
        ? decodeDataKey(env.KEY_SERVICE_DATA_KEY, origin)
        : readKeyFile(join(dataDir, DATA_KEY_FILE));
    if (createSecretBox(key).checkValue !== check)
      return { part, ok: false, text: `${origin} is not the data key this database was created with` };
    if (!readValues) return { part, ok: true, text: `ok (${origin} is this database's data key)` };
    return sealedValues(db, key, origin);
  } catch (error) {
    return { part, ok: false, text: (error as Error).message };
  }
}

/** Every sealed value opened with the data key (nothing is kept or shown of what they hold). */
function sealedValues(db: Db, key: Buffer, origin: string): Finding {
  const part = "data key";
  const { checked, failed, places } = checkSealedValues(db, key, 10);
  if (failed === 0)
    return { part, ok: true, text: `ok (${origin} opens all ${checked} sealed values of this database)` };
  return {
    part,
    ok: false,
    text: `${failed} of ${checked} sealed values do not open with ${origin} (altered):\n    ${places.join("\n    ")}`,
  };
}
