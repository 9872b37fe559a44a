import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";
import { DataKeyError } from "../../../../electron/service/crypto/dataKey.ts";
import { KEY_CHECK, openDataDir } from "../../../../electron/service/dataDir.ts";
import { readMeta, SCHEMA_VERSION } from "../../../../electron/service/store/database.ts";
import { copyF31ab92DataDir } from "../../../harness/fixtureDataDir.ts";
import { makeTempDir, removeDir } from "../../../harness/keyServiceProcess.ts";

/**
 * A data directory opens only with its own data key, checked on the database as it is, before any
 * upgrade touches it; an upgrade that could not finish keeps the way back.
 */

const COPY = "keydesk.db.before-schema-3";
const dirs: string[] = [];
after(() => Promise.all(dirs.map(removeDir)));

/** A data directory as Keydesk at f31ab92 left it (schema 3, secrets sealed with AES-256-GCM). */
async function olderDataDir(): Promise<string> {
  const dir = await makeTempDir("keydesk-datadir-");
  dirs.push(dir);
  copyF31ab92DataDir(dir);
  return dir;
}

function schemaVersion(dir: string): number {
  const db = new Database(join(dir, "keydesk.db"), { readonly: true });
  try {
    return db.pragma("user_version", { simple: true }) as number;
  } finally {
    db.close();
  }
}

test("a data key that is not the database's own is refused before the schema is upgraded", async () => {
  const dir = await olderDataDir();
  const before = readFileSync(join(dir, "keydesk.db"));
  assert.throws(
    () => openDataDir({ dataDir: dir, dataKeyBase64: randomBytes(32).toString("base64") }),
    DataKeyError,
  );
  assert.equal(schemaVersion(dir), 3, "still as that version left it");
  assert.ok(readFileSync(join(dir, "keydesk.db")).equals(before), "not a byte changed");
  assert.equal(existsSync(join(dir, COPY)), false, "no upgrade was begun");
});

test("an upgrade that could not seal every value again keeps the copy from before it, start after start", async () => {
  const dir = await olderDataDir();
  const db = new Database(join(dir, "keydesk.db"));
  const row = db.prepare("SELECT id, public_api_key_sealed AS sealed FROM api_keys LIMIT 1").get() as {
    id: number;
    sealed: Buffer;
  };
  row.sealed[row.sealed.length - 1] = (row.sealed.at(-1) as number) ^ 1;
  db.prepare("UPDATE api_keys SET public_api_key_sealed = ? WHERE id = ?").run(row.sealed, row.id);
  db.close();
  for (let start = 0; start < 2; start++) {
    assert.throws(() => openDataDir({ dataDir: dir }), /does not open with this data key/);
    assert.ok(existsSync(join(dir, COPY)), `the copy is there after start ${start + 1}`);
  }
  assert.equal(schemaVersion(dir), SCHEMA_VERSION, "the schema moved on; the sealed values did not");
});

test("a database holding sealed values without its key check takes only a key that opens them, and never a new one", async () => {
  const dir = await olderDataDir();
  const db = new Database(join(dir, "keydesk.db"));
  db.prepare("DELETE FROM meta WHERE name = ?").run(KEY_CHECK);
  db.close();
  assert.throws(
    () => openDataDir({ dataDir: dir, dataKeyBase64: randomBytes(32).toString("base64") }),
    /no record of its data key .* does not open them/,
  );
  const key = readFileSync(join(dir, "data.key"), "utf8");
  rmSync(join(dir, "data.key"));
  assert.throws(() => openDataDir({ dataDir: dir }), /data key file .* is missing/);
  assert.equal(existsSync(join(dir, "data.key")), false, "no new data key was made for it");
  const data = openDataDir({ dataDir: dir, dataKeyBase64: key });
  try {
    assert.equal(readMeta(data.db, KEY_CHECK), data.box.checkValue, "the key that opens them is recorded");
  } finally {
    data.close();
  }
});
