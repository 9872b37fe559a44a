import assert from "node:assert/strict";
import { join } from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";
import {
  migrateTo,
  openDatabase,
  USAGE_DAYS_VERSION,
} from "../../../../../electron/service/store/database.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";

/**
 * Usage per UTC day began with the 30-day chart: the upgrade starts the days from the hours a
 * database already holds, so the counts of the last day are in the chart at once, and keeps them.
 */

const dirs: string[] = [];
after(() => Promise.all(dirs.map(removeDir)));

test("the migration sums the stored hours into their UTC days and keeps the hours", async () => {
  const dir = await makeTempDir();
  dirs.push(dir);
  const file = join(dir, "keydesk.db");
  const db = new Database(file);
  migrateTo(db, USAGE_DAYS_VERSION - 1);
  db.exec(`INSERT INTO accounts (id, account_key, username, password_hash, created_at)
             VALUES (1, '${"A".repeat(32)}', 'owner', 'x', 0);`);
  const addKey = db.prepare(
    `INSERT INTO api_keys (id, key, account_id, name, public_api_key_digest, public_api_key_sealed, permissions,
         enabled, created_at, updated_at)
       VALUES (?, ?, 1, 'k', randomblob(32), x'00', '["ALL"]', 1, 0, 0)`,
  );
  addKey.run(1, "1".repeat(32));
  addKey.run(2, "2".repeat(32));
  const day = 20_400; // a UTC day: its hours are 24 * day to 24 * day + 23
  const addHour = db.prepare(
    "INSERT INTO key_usage_hours (api_key_id, hour, allowed, refused_expired) VALUES (?, ?, ?, ?)",
  );
  addHour.run(1, 24 * day - 1, 5, 1); // 23:00 the day before
  addHour.run(1, 24 * day, 2, 0);
  addHour.run(1, 24 * day + 23, 3, 4);
  addHour.run(2, 24 * day + 10, 7, 0);
  db.close();

  const migrated = openDatabase(file);
  try {
    assert.deepEqual(
      migrated
        .prepare(
          "SELECT api_key_id AS id, day, allowed, refused_expired AS expired FROM key_usage_days ORDER BY id, day",
        )
        .all(),
      [
        { id: 1, day: day - 1, allowed: 5, expired: 1 },
        { id: 1, day, allowed: 5, expired: 4 },
        { id: 2, day, allowed: 7, expired: 0 },
      ],
    );
    assert.equal((migrated.prepare("SELECT count(*) AS n FROM key_usage_hours").get() as { n: number }).n, 4);
  } finally {
    migrated.close();
  }
});
