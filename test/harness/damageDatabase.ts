import assert from "node:assert/strict";
import { closeSync, openSync, writeSync } from "node:fs";
import Database from "better-sqlite3";

/**
 * Overwrites every page of the keys table in a live service's database with garbage: a
 * checkpoint first (so the pages are in the file, not the WAL), then a write of the header page
 * through SQLite, so that the service's connections drop their cached pages and read the file.
 */
export function damageKeysTable(file: string): void {
  const db = new Database(file);
  try {
    db.pragma("busy_timeout = 5000");
    db.pragma("wal_checkpoint(TRUNCATE)");
    const pageSize = db.pragma("page_size", { simple: true }) as number;
    const pages = db.prepare("SELECT pageno FROM dbstat WHERE name = 'api_keys'").all() as {
      pageno: number;
    }[];
    assert.ok(pages.length > 0);
    const fd = openSync(file, "r+");
    for (const { pageno } of pages)
      writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (pageno - 1) * pageSize);
    closeSync(fd);
    const version = db.pragma("user_version", { simple: true }) as number;
    db.pragma(`user_version = ${version}`);
  } finally {
    db.close();
  }
}
