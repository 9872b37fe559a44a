import Database from "better-sqlite3";
import { SORT_INDEXES } from "../store/apiKeyStore.ts";
import { type Db, migrateTo, SCHEMA_VERSION } from "../store/database.ts";
import { BackupFileError, REFUSED } from "./backupFileError.ts";

/**
 * A restored database holds exactly the schema Keydesk makes, object by object: a trigger, a view,
 * an index or a column of someone else's would run inside the service (a trigger can undo a
 * disable, or drop audit entries). The expected schema of a version is made by running the
 * migrations up to it on an empty database in memory, so a new migration needs nothing here;
 * the key store's sort indexes (made outside migrations, apiKeyStore.ts SORT_INDEXES) and the
 * statistics tables of SQLite's ANALYZE may be there or not.
 */

interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

/** type, name, table and SQL (whitespace runs as one space): what two objects must share. */
const signature = (object: SchemaObject) =>
  JSON.stringify([
    object.type,
    object.name,
    object.tbl_name,
    // SQLite's whitespace only: any other character (U+00A0 among them) is part of a token.
    object.sql?.replace(/[ \t\n\r\f]+/g, " ").replace(/^ | $/g, "") ?? null,
  ]);

function objectsOf(db: Db): Map<string, string> {
  const rows = db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema").all() as SchemaObject[];
  return new Map(rows.map((row) => [`${row.type} ${row.name}`, signature(row)]));
}

interface ExpectedSchema {
  required: Map<string, string>;
  optional: Map<string, string>;
}

const expectedByVersion = new Map<number, ExpectedSchema>();

/** The schema migrations 1..version make, and the objects a database of that version may add. */
export function expectedSchema(version: number): ExpectedSchema {
  const known = expectedByVersion.get(version);
  if (known) return known;
  const db = new Database(":memory:");
  try {
    migrateTo(db, version);
    const required = objectsOf(db);
    try {
      db.exec(SORT_INDEXES);
    } catch {
      // A sort index over a column of a later version: such a database cannot hold it.
    }
    db.exec("ANALYZE");
    const optional = new Map([...objectsOf(db)].filter(([key]) => !required.has(key)));
    const expected = { required, optional };
    expectedByVersion.set(version, expected);
    return expected;
  } finally {
    db.close();
  }
}

/** Refuses a restored database whose schema version or objects are not what Keydesk makes. */
export function checkRestoredSchema(db: Db, manifestVersion: number): void {
  const version = db.pragma("user_version", { simple: true }) as number;
  if (version > SCHEMA_VERSION) throw new BackupFileError(REFUSED.newerSchema(version, SCHEMA_VERSION));
  if (version < 1 || version !== manifestVersion)
    throw new BackupFileError(REFUSED.damaged(`the database in it has schema version ${version}`));
  const { required, optional } = expectedSchema(version);
  const found = objectsOf(db);
  const foreign = [...found].filter(
    ([key, object]) => required.get(key) !== object && optional.get(key) !== object,
  );
  const missing = [...required.keys()].filter((key) => !found.has(key));
  if (foreign.length === 0 && missing.length === 0) return;
  const names = (keys: string[]) =>
    keys
      .slice(0, 3)
      .map((key) => JSON.stringify(key.slice(0, 80)))
      .join(", ");
  throw new BackupFileError(
    REFUSED.damaged(
      foreign.length > 0
        ? `the database in it has schema objects Keydesk does not make: ${names(foreign.map(([key]) => key))}`
        : `the database in it lacks ${names(missing)}`,
    ),
  );
}
