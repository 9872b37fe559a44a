import { randomBytes } from "node:crypto";
import { createPrivateFile, fileExists, readPrivateFile } from "./privateFile.ts";
import { DATA_KEY_BYTES } from "./secretBox.ts";

/**
 * Where the data key comes from: given by the embedder (the desktop app keeps it in the OS
 * keychain), the KEY_SERVICE_DATA_KEY environment variable, or a file in the data directory
 * created with mode 0600 on first start.
 */

export class DataKeyError extends Error {}

const BASE64_32_BYTES = /^[A-Za-z0-9+/]{43}=$/;
const HEX_32_BYTES = /^[0-9A-Fa-f]{64}$/;

/** 32 bytes in base64 (what Keydesk writes) or in hex (what `openssl rand -hex 32` prints). */
export function decodeDataKey(text: string, origin: string): Buffer {
  const trimmed = text.trim();
  if (HEX_32_BYTES.test(trimmed)) return Buffer.from(trimmed, "hex");
  if (!BASE64_32_BYTES.test(trimmed)) {
    throw new DataKeyError(
      `${origin} must hold exactly ${DATA_KEY_BYTES} bytes in base64 (44 characters) or hex (64 characters)`,
    );
  }
  return Buffer.from(trimmed, "base64");
}

/** Reads a data key file, refusing one that other users can read. */
export function readKeyFile(path: string): Buffer {
  const text = readPrivateFile(path, (problem) => new DataKeyError(`the data key file ${problem}`));
  return decodeDataKey(text, `the data key file ${path}`);
}

/**
 * Reads the data key file, or creates it when `mayCreate` (a database that has never been
 * keyed). A missing file for a keyed database is an error: a new key could not read the old data.
 */
export function loadOrCreateKeyFile(path: string, mayCreate: boolean): Buffer {
  if (fileExists(path)) return readKeyFile(path);
  if (!mayCreate) {
    throw new DataKeyError(
      `the data key file ${path} is missing, but the database beside it was encrypted with a data key; ` +
        "restore the original data.key or set KEY_SERVICE_DATA_KEY to it",
    );
  }
  const key = randomBytes(DATA_KEY_BYTES);
  // Another process may have created it between our check and now: then we use theirs.
  return createPrivateFile(path, key.toString("base64")) ? key : readKeyFile(path);
}
