import assert from "node:assert/strict";
import { join } from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";
import {
  migrateTo,
  ORIGIN_CREATED_AT_VERSION,
  openDatabase,
} from "../../../../../electron/service/store/database.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";

/**
 * Keys from before creation times were answered (`createdAt`, include=created): a key this service
 * created keeps the time its row was written; a key a sync link knows may be a copy a pull made, whose
 * row time is the pull's, so its creation time is not known (null), never made up.
 */

const dirs: string[] = [];
after(() => Promise.all(dirs.map(removeDir)));

test("the migration keeps the creation time of keys created here and leaves sync-linked keys unknown", async () => {
  const dir = await makeTempDir();
  dirs.push(dir);
  const file = join(dir, "keydesk.db");
  const db = new Database(file);
  migrateTo(db, ORIGIN_CREATED_AT_VERSION - 1);
  db.exec(`INSERT INTO accounts (id, account_key, username, password_hash, created_at)
             VALUES (1, '${"A".repeat(32)}', 'owner', 'x', 0);
           INSERT INTO sync_links (id, account_id, remote_base_url, remote_username, remote_password_sealed,
               remote_account_key, interval_seconds, created_at)
             VALUES (1, 1, 'http://127.0.0.1:9', 'team', x'00', '_', 300, 0);`);
  const addKey = db.prepare(
    `INSERT INTO api_keys (id, key, account_id, name, public_api_key_digest, public_api_key_sealed, permissions,
         enabled, created_at, updated_at)
       VALUES (?, ?, 1, 'k', randomblob(32), x'00', '["ALL"]', 1, ?, ?)`,
  );
  addKey.run(1, "1".repeat(32), 1_700_000_000_000, 1_700_000_500_000);
  addKey.run(2, "2".repeat(32), 1_700_000_100_000, 1_700_000_100_000);
  db.prepare("INSERT INTO sync_keys (api_key_id, link_id, remote_key) VALUES (2, 1, ?)").run("2".repeat(32));
  db.close();

  const migrated = openDatabase(file);
  try {
    assert.deepEqual(
      migrated.prepare("SELECT id, origin_created_at AS createdAt FROM api_keys ORDER BY id").all(),
      [
        { id: 1, createdAt: 1_700_000_000_000 },
        { id: 2, createdAt: null },
      ],
    );
  } finally {
    migrated.close();
  }
});
