import { statSync } from "node:fs";
import type Database from "better-sqlite3";
import { isUnsealable } from "../crypto/secretBox.ts";

/**
 * A damaged database file said in words, at start (a bounded quick check) and at run time
 * (SQLite's corruption and disk-full errors), instead of 500s that name nothing.
 */

/** A connection (database.ts's Db, named here so the two modules do not import each other). */
type Db = Database.Database;

/** Databases up to this size get SQLite's quick check at every start (about 1 s per 50 MiB here). */
export const DEFAULT_START_CHECK_MAX_MB = 64;

/** The service's database file cannot be used: it is damaged, or it is not a database at all. */
export class DamagedDatabaseError extends Error {
  readonly file: string;

  constructor(file: string, detail: string) {
    super(damagedText(file, detail));
    this.file = file;
  }
}

/** What a damaged file means for the admin, and what to do. */
export function damagedText(file: string, detail: string): string {
  return (
    `the database ${file} is damaged (${detail}); stop the service, keep a copy of the file, and restore ` +
    `the data directory from a backup (\`key-service restore --in FILE --data-dir DIR --force\`); ` +
    `\`key-service check --data-dir DIR\` reports what is damaged`
  );
}

const CORRUPTION = /^SQLITE_(CORRUPT|NOTADB)/;

/** Whether SQLite refused because the file's content is damaged (or is no database). */
export function isCorruption(error: unknown): boolean {
  return CORRUPTION.test((error as { code?: unknown } | null)?.code?.toString() ?? "");
}

/** Whether a write failed because the disk (or the file system's quota) is full. */
function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code?.toString() ?? "";
  return code === "SQLITE_FULL" || code === "ENOSPC" || code === "SQLITE_IOERR_WRITE";
}

/**
 * SQLite's own check of the file: every page, b-tree and free list (quick_check; integrity_check
 * with `full`, which also compares every index with its table). Answers the problems found, at
 * most `limit`; none when the file is sound.
 */
export function checkDatabase(db: Db, { full = false, limit = 10 } = {}): string[] {
  const rows = db.pragma(`${full ? "integrity_check" : "quick_check"}(${limit})`) as Record<string, string>[];
  // SQLite heads its list with "*** in database main ***" and breaks long problems over lines.
  const problems = rows
    .map((row) =>
      (Object.values(row)[0] as string).replace("*** in database main ***", "").replace(/\s+/g, " ").trim(),
    )
    .filter((problem) => problem !== "");
  return problems.length === 1 && problems[0] === "ok" ? [] : problems;
}

/** Whether a start should run the quick check: the file exists and is at most `maxMb` MiB. */
export function worthCheckingAtStart(file: string, maxMb: number): boolean {
  if (maxMb <= 0) return false;
  try {
    return statSync(file).size <= maxMb * 1024 * 1024;
  } catch {
    return false;
  }
}

/**
 * Readiness (GET /local/1/health/ready): the database answers a query that reads its schema and the
 * accounts and keys tables themselves (max(id) walks each table's b-tree, not a narrower index),
 * which every request needs. A few cached pages, so a load balancer may ask every second; it finds a
 * database that cannot be read, not every damaged page (that is `key-service check`). Throws what
 * SQLite threw; the answer's values are not used.
 */
export function answerReadinessQuery(db: Db): void {
  db.prepare("SELECT (SELECT max(id) FROM accounts) AS account, (SELECT max(id) FROM api_keys) AS key").get();
}

/**
 * A failure of the database file itself, in words the admin can act on (retrying later, after the
 * admin acted, works): a damaged file, or a full disk (the change was not saved; reads go on).
 * Undefined for any other error. What to answer with it is the HTTP layer's (app.ts: 503).
 */
export function sqliteFailure(error: unknown, databaseFile: string): string | undefined {
  if (isCorruption(error)) return damagedText(databaseFile, (error as Error).message);
  if (isUnsealable(error))
    return damagedText(databaseFile, "a sealed value in it does not open with the data key: it was altered");
  if (isDiskFull(error))
    return (
      `the disk holding ${databaseFile} is full: this change was not saved (nothing else was lost, and reading ` +
      "still works); free some space and try again"
    );
  return undefined;
}
