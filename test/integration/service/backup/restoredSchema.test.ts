import assert from "node:assert/strict";
import { chmodSync, copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import Database from "better-sqlite3";
import { backupDataDir, restoreDataDir } from "../../../../electron/service/backup/backupDataDir.ts";
import { SCHEMA_VERSION } from "../../../../electron/service/store/database.ts";
import { alter, entriesOf, makeDataDir, rowsOf } from "../../../harness/backupDataDirs.ts";
import { makeTempDir, REPO_ROOT, removeDir } from "../../../harness/keyServiceProcess.ts";

/**
 * A restored database holds exactly the schema Keydesk makes for its schema version, object by
 * object (the migrations up to that version, the key store's sort indexes, SQLite's statistics):
 * a trigger, a view, an index or a column of anyone else's is refused before anything runs on it,
 * and so is a schema version this Keydesk does not know.
 */

const PASSPHRASE = "twelve chars or more";
let root: string;
let cases = 0;

before(async () => {
  root = await makeTempDir("keydesk-backup-schema-");
});
after(() => removeDir(root));

/** A new case directory with a data directory the service made, changed by `sql`. */
async function dataDirWith(sql?: string): Promise<{ dir: string; dataDir: string }> {
  const dir = join(root, `case-${++cases}`);
  const dataDir = await makeDataDir(join(dir, "source"));
  if (sql) alter(dataDir, sql);
  return { dir, dataDir };
}

/** Backs `dataDir` up into `dir` and restores it into `dir`/restored. */
async function roundTrip(dir: string, dataDir: string) {
  const input = join(dir, "input.kdbackup");
  await backupDataDir({ dataDir, out: input, passphrase: PASSPHRASE });
  return restoreDataDir({ input, dataDir: join(dir, "restored"), passphrase: PASSPHRASE });
}

async function refused(sql: string, message: string | RegExp): Promise<void> {
  const { dir, dataDir } = await dataDirWith(sql);
  await assert.rejects(roundTrip(dir, dataDir), (error: Error) => {
    if (typeof message === "string") assert.equal(error.message, message);
    else assert.match(error.message, message);
    assert.doesNotMatch(error.message, /\n/);
    return true;
  });
  assert.deepEqual(entriesOf(dir), ["input.kdbackup", "source"], "no target, no staging directory");
}

const foreign = (object: string) =>
  new RegExp(
    `^the file is damaged \\(the database in it has schema objects Keydesk does not make: "${object}"\\); nothing was written$`,
  );

describe("restored: the schemas Keydesk makes", () => {
  test("a new data directory, with the key store's sort indexes", async () => {
    const { dir, dataDir } = await dataDirWith();
    const db = new Database(join(dataDir, "keydesk.db"), { readonly: true });
    const sortIndex = db
      .prepare("SELECT name FROM sqlite_schema WHERE name = 'api_keys_by_account_state'")
      .get();
    db.close();
    assert.ok(sortIndex, "the store made its sort indexes");
    const restored = await roundTrip(dir, dataDir);
    assert.equal(restored.accounts, 1);
    assert.deepEqual(rowsOf(join(dir, "restored"), "accounts"), rowsOf(dataDir, "accounts"));
  });

  test("a data directory of an older Keydesk (fixture data-f31ab92, schema 3)", async () => {
    const dir = join(root, `case-${++cases}`);
    const dataDir = join(dir, "source");
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    for (const file of ["keydesk.db", "data.key"])
      copyFileSync(join(REPO_ROOT, "test/fixtures/data-f31ab92", file), join(dataDir, file));
    chmodSync(join(dataDir, "data.key"), 0o600);
    const restored = await roundTrip(dir, dataDir);
    assert.equal(restored.accounts, 2);
    assert.deepEqual(rowsOf(join(dir, "restored"), "api_keys"), rowsOf(dataDir, "api_keys"));
  });

  test("a database SQLite's ANALYZE ran on (its statistics tables)", async () => {
    const { dir, dataDir } = await dataDirWith("ANALYZE");
    assert.equal((await roundTrip(dir, dataDir)).accounts, 1);
  });
});

describe("refused: anything else in the schema", () => {
  test("a trigger (one that keeps a disabled key enabled)", async () => {
    await refused(
      `CREATE TRIGGER keep_enabled AFTER UPDATE OF enabled ON api_keys
         BEGIN UPDATE api_keys SET enabled = 1 WHERE id = NEW.id; END`,
      foreign("trigger keep_enabled"),
    );
  });

  test("a trigger that replaces one of Keydesk's under its name", async () => {
    await refused(
      `DROP TRIGGER audit_entries_append_only;
       CREATE TRIGGER audit_entries_append_only BEFORE INSERT ON audit_entries BEGIN SELECT RAISE(IGNORE); END`,
      foreign("trigger audit_entries_append_only"),
    );
  });

  test("a view", async () => {
    await refused("CREATE VIEW every_key AS SELECT * FROM api_keys", foreign("view every_key"));
  });

  test("an extra index", async () => {
    await refused("CREATE INDEX api_keys_by_name ON api_keys(name)", foreign("index api_keys_by_name"));
  });

  test("an extra column", async () => {
    await refused("ALTER TABLE api_keys ADD COLUMN note TEXT", foreign("table api_keys"));
  });

  test("an extra table", async () => {
    await refused("CREATE TABLE notes (text TEXT)", foreign("table notes"));
  });

  test("a table's SQL changed by a character only SQLite reads as part of a word (U+00A0 is no space to it)", async () => {
    await refused(
      `PRAGMA writable_schema = ON;
       UPDATE sqlite_schema SET sql = replace(sql, 'failures INTEGER NOT NULL DEFAULT 0', 'failures INTEGER NOT NULL DEFAULT ' || char(160) || '0')
         WHERE name = 'sync_links';
       PRAGMA writable_schema = OFF;`,
      foreign("table sync_links"),
    );
  });

  test("one of Keydesk's indexes missing", async () => {
    await refused(
      "DROP INDEX api_keys_by_account_name",
      /^the file is damaged \(the database in it lacks "index api_keys_by_account_name"\); nothing was written$/,
    );
  });

  test("a schema version above this Keydesk's: written by a newer Keydesk", async () => {
    await refused(
      `PRAGMA user_version = ${SCHEMA_VERSION + 1}`,
      `its database was written by a newer Keydesk (schema ${SCHEMA_VERSION + 1}; this one knows ${SCHEMA_VERSION}); use a newer Keydesk; nothing was written`,
    );
  });

  test("a schema version below 1", async () => {
    await refused(
      "PRAGMA user_version = 0",
      "the file is damaged (its list of contents is not valid); nothing was written",
    );
  });
});
