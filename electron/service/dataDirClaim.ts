import { chmodSync, existsSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";

/** The file in a data dir whose lock says who uses the dir (it holds nothing else). */
export const CLAIM_FILE = "keydesk.lock";
/** The data dir's database: a claim alone also finds it unopened (dataDir.ts opens it under this name). */
export const DATABASE_FILE = "keydesk.db";

/**
 * - `shared`: the dir's database is in use (a `serve`, the desktop app's service, a CLI command):
 *   any number of processes at once.
 * - `alone`: a command that moves the dir's data as a whole (`migrate --from-sqlite`, a restore over
 *   it) and must not run beside anything that writes it.
 */
export type ClaimMode = "shared" | "alone";

/**
 * The dir is claimed the other way: the message says by what and what to do.
 * @internal Exported for tests.
 */
export class DataDirBusyError extends Error {}

export interface DataDirClaim {
  release(): void;
}

/**
 * Claims a data dir for this process until `release()` (or the process's end, however it ends: the
 * claim is an OS file lock, which a killed process does not leave behind). Made of SQLite's own
 * locks on CLAIM_FILE, held for good in its exclusive locking mode: a shared lock by a read, an
 * exclusive one by an exclusive transaction. Refused at once, without waiting, when the dir is
 * claimed the other way.
 */
export function claimDataDir(dir: string, mode: ClaimMode): DataDirClaim {
  const file = join(dir, CLAIM_FILE);
  const db = new Database(file);
  try {
    if (process.platform !== "win32") chmodSync(file, 0o600);
    db.pragma("busy_timeout = 0");
    // It holds no data: no journal beside it (a restore counts what is in its target).
    db.pragma("journal_mode = OFF");
    db.pragma("locking_mode = EXCLUSIVE");
    if (mode === "shared") db.prepare("SELECT count(*) FROM sqlite_master").get();
    else {
      db.exec("BEGIN EXCLUSIVE; COMMIT");
      refuseOpenDatabase(join(dir, DATABASE_FILE));
    }
  } catch (error) {
    db.close();
    if (!heldByAnother(error)) throw error;
    throw new DataDirBusyError(
      mode === "shared"
        ? `${dir} is being moved by another command (key-service migrate --from-sqlite, or a restore over it); ` +
            "start this once it has finished"
        : `${dir} is in use by a running key service (key-service serve, the Keydesk app, or another key-service ` +
            "command): stop it first",
    );
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      db.close();
    },
  };
}

/**
 * A claim alone also finds the database itself opened by nobody: a claim file deleted under a
 * running service (taken for a stale one) and made anew would otherwise let a move go ahead
 * beside it. Every connection to a database in WAL mode keeps a lock on it that an exclusive
 * transaction in exclusive locking mode cannot pass; the probe closes at once (the caller opens
 * the database itself next).
 */
function refuseOpenDatabase(file: string): void {
  if (!existsSync(file)) return;
  const probe = new Database(file, { fileMustExist: true });
  try {
    probe.pragma("busy_timeout = 0");
    probe.pragma("locking_mode = EXCLUSIVE");
    probe.exec("BEGIN EXCLUSIVE; COMMIT");
  } catch (error) {
    // Only another process's lock refuses the claim: a damaged file is for the command to report
    // (a restore over it is how it is mended).
    if (heldByAnother(error)) throw error;
  } finally {
    probe.close();
  }
}

/** SQLite refused a lock that another connection holds (never waited for here: busy_timeout 0). */
function heldByAnother(error: unknown): boolean {
  return /^SQLITE_BUSY/.test((error as { code?: string }).code ?? "");
}
