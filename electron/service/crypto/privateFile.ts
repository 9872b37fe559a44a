import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * Files that hold a secret where no keychain holds it (the data key, the desktop's Local owner
 * password): created with mode 0600 and refused when other users could read them, because a
 * secret others can read is already lost.
 */

/** Why the file may not be trusted with a secret, or undefined when only its owner can read it. */
function exposureOf(path: string): string | undefined {
  if (process.platform === "win32") return undefined; // NTFS ACLs, not POSIX modes, guard the user's profile.
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) === 0) return undefined;
  return `${path} can be read by other users (mode ${mode.toString(8)}); run: chmod 600 ${path}`;
}

/** Whether the file exists (other errors, such as EACCES, are thrown). */
export function fileExists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** The file's text, trimmed; throws `makeError(problem)` when others can read it. */
export function readPrivateFile(path: string, makeError: (problem: string) => Error): string {
  const exposure = exposureOf(path);
  if (exposure) throw makeError(exposure);
  return readFileSync(path, "utf8").trim();
}

/**
 * Creates the file with mode 0600 and the text, durably. Answers false, writing nothing, when
 * the file already exists: another process got there first, and its secret is the one to use.
 * The text is written to a file of this process's own first and linked into place whole, so a
 * process that finds the file never reads it empty or half-written.
 */
export function createPrivateFile(path: string, text: string): boolean {
  const draft = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}`);
  const fd = openSync(draft, "wx", 0o600);
  try {
    try {
      writeSync(fd, `${text}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(draft, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw error;
    }
  } finally {
    rmSync(draft, { force: true });
  }
  syncDirectory(dirname(path));
  return true;
}

/** The new name survives a crash of the machine only once its directory is synced (not on Windows). */
function syncDirectory(dir: string): void {
  if (process.platform === "win32") return;
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
