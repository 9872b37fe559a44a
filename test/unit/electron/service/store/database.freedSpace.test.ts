import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";
import { newKeyId, newPublicApiKey } from "../../../../../electron/service/domain/identifiers.ts";
import {
  migrateTo,
  openDatabase,
  readMeta,
  SCHEMA_VERSION,
  writeMeta,
} from "../../../../../electron/service/store/database.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";

/**
 * Deleted secrets do not linger in the database file: every connection zeroes what it deletes
 * (secure_delete), and a database written before the sync outbox stopped copying publicApiKeys
 * is cleaned once at open: the rows are stripped and the whole file rebuilt, so freed pages and
 * gaps inside pages lose what older versions left there.
 */

const dirs: string[] = [];
after(() => Promise.all(dirs.map(removeDir)));

async function tempFile(): Promise<string> {
  const dir = await makeTempDir();
  dirs.push(dir);
  return join(dir, "keydesk.db");
}

/** The database file and, when there is one, its WAL: every byte a reader of the disk could see. */
function fileBytes(file: string): Buffer {
  const parts = [file, `${file}-wal`].filter((path) => existsSync(path)).map((path) => readFileSync(path));
  return Buffer.concat(parts);
}

const contains = (bytes: Buffer, secret: string) => bytes.indexOf(Buffer.from(secret, "utf8")) !== -1;

test("what a connection deletes is zeroed in the database file, not left in the freed space", async () => {
  const file = await tempFile();
  const secret = newPublicApiKey();
  const db = openDatabase(file);
  writeMeta(db, "secret", secret);
  // Into the database file first: a delete then only frees the cell, which keeps its bytes unless zeroed.
  db.pragma("wal_checkpoint(TRUNCATE)");
  assert.ok(contains(fileBytes(file), secret), "the value reached the database file");
  db.prepare("DELETE FROM meta WHERE name = 'secret'").run();
  db.close();
  assert.ok(!existsSync(`${file}-wal`), "closing checkpointed the delete into the file");
  assert.ok(!contains(fileBytes(file), secret), "the deleted value is gone from the file");
});

/** The outbox as the version before this one wrote it: a create attempt's sentBody was the whole stored key. */
function writeLegacyDatabase(file: string, live: string, deleted: string): void {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  migrateTo(db, 3);
  // As that version ran: freed space was not zeroed.
  db.pragma("secure_delete = OFF");
  db.exec(`INSERT INTO accounts (id, account_key, username, password_hash, created_at)
           VALUES (1, '${"A".repeat(32)}', 'owner', 'x', 0);
           INSERT INTO sync_links (id, account_id, remote_base_url, remote_username, remote_password_sealed,
               remote_account_key, interval_seconds, created_at)
             VALUES (1, 1, 'http://127.0.0.1:9', 'team', x'00', '_', 300, 0);`);
  const addKey = db.prepare(
    `INSERT INTO api_keys (id, key, account_id, name, public_api_key_digest, public_api_key_sealed, permissions,
         enabled, created_at, updated_at)
       VALUES (?, ?, 1, ?, randomblob(32), x'00', '["ALL"]', 1, 0, 0)`,
  );
  const addAttempt = db.prepare(
    `INSERT INTO sync_outbox (id, link_id, api_key_id, kind, fields, idempotency_key, attempts, created_at)
       VALUES (?, 1, ?, 'create', ?, 'idem', 1, 0)`,
  );
  for (const [id, publicApiKey] of [
    [1, live],
    [2, deleted],
  ] as const) {
    const key = newKeyId();
    addKey.run(id, key, `key ${id}`);
    const sentBody = {
      id,
      key,
      publicApiKey,
      accountId: 1,
      accountKey: "A".repeat(32),
      name: `key ${id}`,
      allowedIPs: ["192.0.2.1"],
      permissions: ["ALL"],
      validFrom: 1_700_000_000_000,
      validTo: null,
      enabled: true,
    };
    addAttempt.run(id, id, JSON.stringify({ fields: ["name", "allowedIPs"], sentBody }));
  }
  // The second create went through: its row was deleted, its bytes stayed in the page.
  db.prepare("DELETE FROM sync_outbox WHERE id = 2").run();
  db.close();
}

test("opening a database of the previous version strips publicApiKeys from recorded create attempts and scrubs the freed space", async () => {
  const file = await tempFile();
  const live = newPublicApiKey();
  const deleted = newPublicApiKey();
  writeLegacyDatabase(file, live, deleted);
  const before = fileBytes(file);
  assert.ok(contains(before, live), "the legacy file holds the pending attempt's publicApiKey");
  assert.ok(contains(before, deleted), "and the deleted attempt's, in freed space");

  const db = openDatabase(file);
  try {
    assert.equal(db.pragma("user_version", { simple: true }), SCHEMA_VERSION);
    assert.equal(readMeta(db, "free_space_scrub_pending"), undefined, "the scrub ran and is done");
    const stored = JSON.parse(
      (db.prepare("SELECT fields FROM sync_outbox WHERE id = 1").get() as { fields: string }).fields,
    );
    assert.deepEqual(stored, {
      fields: ["name", "allowedIPs"],
      sentBody: {
        name: "key 1",
        allowedIPs: ["192.0.2.1"],
        permissions: ["ALL"],
        validFrom: 1_700_000_000_000,
        validTo: null,
        enabled: true,
      },
    });
    // While the database is open (the WAL truncated by the scrub, not yet removed).
    const open = fileBytes(file);
    assert.ok(!contains(open, live) && !contains(open, deleted), "no publicApiKey left in the files");
  } finally {
    db.close();
  }
  const closed = fileBytes(file);
  assert.ok(!contains(closed, live) && !contains(closed, deleted), "nor after closing");
});

test("a new database has nothing to scrub: no rebuild at open", async () => {
  const file = await tempFile();
  const db = openDatabase(file);
  try {
    assert.equal(readMeta(db, "free_space_scrub_pending"), undefined);
    assert.equal(db.pragma("secure_delete", { simple: true }), 1);
  } finally {
    db.close();
  }
});
