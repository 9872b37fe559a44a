import { SCHEMA_VERSION } from "../store/database.ts";
import {
  type Db,
  madeSchema,
  type SchemaObject,
  schemaObjects,
  schemaVersionOf,
} from "../store/sqliteFile.ts";
import { BackupFileError, REFUSED } from "./backupFileError.ts";

/**
 * A restored database holds exactly the schema Keydesk makes, object by object: a trigger, a view,
 * an index or a column of someone else's would run inside the service (a trigger can undo a
 * disable, or drop audit entries). The expected schema of a version is what the store's
 * migrations make (sqliteFile.ts madeSchema), so a new migration needs nothing here; the key
 * store's sort indexes and the statistics tables of SQLite's ANALYZE may be there or not.
 */

/** type, name, table and SQL (whitespace runs as one space): what two objects must share. */
const signature = (object: SchemaObject) =>
  JSON.stringify([
    object.type,
    object.name,
    object.tbl_name,
    // SQLite's whitespace only: any other character (U+00A0 among them) is part of a token.
    object.sql?.replace(/[ \t\n\r\f]+/g, " ").replace(/^ | $/g, "") ?? null,
  ]);

const objectsIn = (objects: SchemaObject[]): Map<string, string> =>
  new Map(objects.map((object) => [`${object.type} ${object.name}`, signature(object)]));

interface ExpectedSchema {
  required: Map<string, string>;
  optional: Map<string, string>;
}

const expectedByVersion = new Map<number, ExpectedSchema>();

/** The schema migrations 1..version make, and the objects a database of that version may add. */
function expectedSchema(version: number): ExpectedSchema {
  const known = expectedByVersion.get(version);
  if (known) return known;
  const made = madeSchema(version);
  const expected = { required: objectsIn(made.required), optional: objectsIn(made.optional) };
  expectedByVersion.set(version, expected);
  return expected;
}

/** Refuses a restored database whose schema version or objects are not what Keydesk makes. */
export function checkRestoredSchema(db: Db, manifestVersion: number): void {
  const version = schemaVersionOf(db);
  if (version > SCHEMA_VERSION) throw new BackupFileError(REFUSED.newerSchema(version, SCHEMA_VERSION));
  if (version < 1 || version !== manifestVersion)
    throw new BackupFileError(REFUSED.damaged(`the database in it has schema version ${version}`));
  const { required, optional } = expectedSchema(version);
  const found = objectsIn(schemaObjects(db));
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
