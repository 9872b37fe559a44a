import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { DATA_KEY_BYTES } from "./secretBox.ts";

/**
 * Where the data key comes from: given by the embedder (the desktop app keeps it in the OS
 * keychain), the KEY_SERVICE_DATA_KEY environment variable, or a file in the data directory
 * created with mode 0600 on first start.
 */

export class DataKeyError extends Error {}

const BASE64_32_BYTES = /^[A-Za-z0-9+/]{43}=$/;

export function decodeDataKey(text: string, origin: string): Buffer {
  const trimmed = text.trim();
  if (!BASE64_32_BYTES.test(trimmed)) {
    throw new DataKeyError(`${origin} must hold exactly ${DATA_KEY_BYTES} bytes in base64 (44 characters)`);
  }
  return Buffer.from(trimmed, "base64");
}

function readKeyFile(path: string): Buffer {
  if (process.platform !== "win32") {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new DataKeyError(
        `the data key file ${path} can be read by other users (mode ${mode.toString(8)}); run: chmod 600 ${path}`,
      );
    }
  }
  return decodeDataKey(readFileSync(path, "utf8"), `the data key file ${path}`);
}

function createKeyFile(path: string): Buffer | undefined {
  const key = randomBytes(DATA_KEY_BYTES);
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw error;
  }
  try {
    writeSync(fd, `${key.toString("base64")}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return key;
}

/**
 * Reads the data key file, or creates it when `mayCreate` (a database that has never been
 * keyed). A missing file for a keyed database is an error: a new key could not read the old data.
 */
export function loadOrCreateKeyFile(path: string, mayCreate: boolean): Buffer {
  let exists = true;
  try {
    statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    exists = false;
  }
  if (exists) return readKeyFile(path);
  if (!mayCreate) {
    throw new DataKeyError(
      `the data key file ${path} is missing, but the database beside it was encrypted with a data key; ` +
        "restore the original data.key or set KEY_SERVICE_DATA_KEY to it",
    );
  }
  // Another process may have created it between our check and now: then we use theirs.
  return createKeyFile(path) ?? readKeyFile(path);
}
