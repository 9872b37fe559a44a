import { randomBytes } from "node:crypto";
import { readdirSync, watch } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import Database from "better-sqlite3";
import { addAccount } from "../../electron/service/accountAdmin.ts";
import { openDataDir } from "../../electron/service/dataDir.ts";

/** Data directories for the backup tests: real ones, made by the service's own code. */

/** A new data directory with one account (`owner`) and, with `fillBytes`, that much more data. */
export async function makeDataDir(dataDir: string, options: { fillBytes?: number } = {}): Promise<string> {
  const data = openDataDir({ dataDir });
  try {
    await addAccount(data.store, { username: "owner", password: "owner password long 1" });
  } finally {
    data.close();
  }
  if (options.fillBytes) fill(dataDir, options.fillBytes);
  return dataDir;
}

/** Rows of random text in the meta table (no schema change): a database that many bytes larger. */
export function fill(dataDir: string, bytes: number): void {
  const db = new Database(join(dataDir, "keydesk.db"));
  try {
    const insert = db.prepare("INSERT INTO meta (name, value) VALUES (?, ?)");
    db.transaction(() => {
      for (let at = 0; at < bytes; at += 32 * 1024)
        insert.run(`filler-${at}`, randomBytes(16 * 1024).toString("hex"));
    })();
    db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
}

/** Changes a data directory's database with SQL (a schema object Keydesk does not make, say). */
export function alter(dataDir: string, sql: string): void {
  const db = new Database(join(dataDir, "keydesk.db"));
  try {
    // Lets `PRAGMA writable_schema` edit the schema's text, as an attacker's own SQLite would.
    db.unsafeMode(true);
    db.exec(sql);
    db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
}

/** The rows of a table of a data directory's database, to compare a restore with its source. */
export function rowsOf(dataDir: string, table: string): unknown[] {
  const db = new Database(join(dataDir, "keydesk.db"), { readonly: true });
  try {
    return db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all();
  } finally {
    db.close();
  }
}

/** A directory's entries, sorted: what a refused restore must leave as it found it. */
export const entriesOf = (dir: string) => readdirSync(dir).sort();

/**
 * The names created in `dir` (even if removed again) while `run` ran: a restore refused before
 * any byte was authenticated creates nothing there, not even for a moment.
 */
export async function createdDuring(dir: string, run: () => Promise<unknown>): Promise<string[]> {
  const created = new Set<string>();
  const watcher = watch(dir, (event, name) => {
    if (event === "rename" && name) created.add(name);
  });
  try {
    await run();
  } finally {
    // inotify's events come in on the event loop: let those of the last moment arrive.
    await sleep(100);
    watcher.close();
  }
  return [...created].sort();
}
