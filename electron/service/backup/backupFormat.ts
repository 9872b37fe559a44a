import { createCipheriv, createDecipheriv, randomBytes, scrypt } from "node:crypto";

/**
 * The backup file (format 1): a data directory sealed with a passphrase.
 *
 *   "KDBACKUP"                 8 bytes, ASCII
 *   header length              4 bytes, unsigned big-endian
 *   header                     JSON, UTF-8: format, KDF and its parameters, cipher, IV, creation time
 *   ciphertext                 AES-256-GCM of the payload, with the three parts above as AAD
 *   tag                        16 bytes, GCM's
 *
 * The key is scrypt(passphrase, salt, N, r, p) (memory-hard: 128 MiB with N = 2^17, r = 8). The
 * payload is a 4-byte big-endian length, a JSON manifest (schema version, the files and their
 * sizes), then each file's bytes in the manifest's order: the database (a VACUUM INTO snapshot)
 * and the data key. Nothing in the file can be read or changed without the passphrase; the
 * header is in clear but authenticated.
 */

export const MAGIC = Buffer.from("KDBACKUP", "ascii");
export const FORMAT = 1;
/**
 * Format 2: format 1 whose payload also holds the desktop's remote profiles (REMOTE_PROFILES_FILE),
 * so that a reader of format 1 only refuses it instead of restoring that file into a data directory.
 */
export const FORMAT_WITH_PROFILES = 2;
const FORMATS_READ = [FORMAT, FORMAT_WITH_PROFILES];
const TAG_BYTES = 16;

export interface KdfParameters {
  name: "scrypt";
  N: number;
  r: number;
  p: number;
  /** base64, 16 random bytes */
  salt: string;
}

export interface BackupHeader {
  format: number;
  kdf: KdfParameters;
  cipher: "aes-256-gcm";
  /** base64, 12 random bytes */
  iv: string;
  createdAt: string;
}

export interface BackupManifest {
  schemaVersion: number;
  files: { name: string; bytes: number }[];
}

/** Cost of the key derivation: about half a second and 128 MiB on a laptop of 2025. */
export const DEFAULT_KDF = { N: 2 ** 17, r: 8, p: 1 } as const;

export class BackupFileError extends Error {}

export function deriveBackupKey(passphrase: string, kdf: KdfParameters): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      passphrase.normalize("NFC"),
      Buffer.from(kdf.salt, "base64"),
      32,
      { N: kdf.N, r: kdf.r, p: kdf.p, maxmem: 256 * kdf.N * kdf.r + 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
}

export function newHeader(
  now: Date,
  kdf: { N: number; r: number; p: number } = DEFAULT_KDF,
  format: number = FORMAT,
): BackupHeader {
  return {
    format,
    kdf: { name: "scrypt", ...kdf, salt: randomBytes(16).toString("base64") },
    cipher: "aes-256-gcm",
    iv: randomBytes(12).toString("base64"),
    createdAt: now.toISOString(),
  };
}

/** The file's first bytes (magic, length, header): written in clear, authenticated as AAD. */
export function headBytes(header: BackupHeader): Buffer {
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length);
  return Buffer.concat([MAGIC, length, json]);
}

export function sealer(key: Buffer, header: BackupHeader, head: Buffer) {
  const cipher = createCipheriv("aes-256-gcm", key, Buffer.from(header.iv, "base64"));
  cipher.setAAD(head);
  return cipher;
}

export function opener(key: Buffer, header: BackupHeader, head: Buffer, tag: Buffer) {
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(header.iv, "base64"));
  decipher.setAAD(head);
  decipher.setAuthTag(tag);
  return decipher;
}

export const TAG_LENGTH = TAG_BYTES;

/** Reads and checks the head of a backup file; `read(offset, length)` reads its bytes. */
export function parseHead(first: Buffer, fileBytes: number): { header: BackupHeader; headLength: number } {
  const notBackup = () =>
    new BackupFileError("it is not a Keydesk backup file (or its beginning is damaged)");
  if (first.length < 12 || !first.subarray(0, 8).equals(MAGIC)) throw notBackup();
  const length = first.readUInt32BE(8);
  if (length > 64 * 1024 || first.length < 12 + length) throw notBackup();
  let header: BackupHeader;
  try {
    header = JSON.parse(first.subarray(12, 12 + length).toString("utf8")) as BackupHeader;
  } catch {
    throw notBackup();
  }
  if (!FORMATS_READ.includes(header.format))
    throw new BackupFileError(
      `it is a backup of format ${String(header.format)}, and this Keydesk reads formats ${FORMATS_READ.join(" and ")}; use a newer Keydesk`,
    );
  const kdf = header.kdf;
  const valid =
    kdf?.name === "scrypt" &&
    [kdf.N, kdf.r, kdf.p].every((n) => Number.isInteger(n) && n > 0) &&
    kdf.N <= 2 ** 20 &&
    kdf.r <= 32 &&
    kdf.p <= 16 &&
    header.cipher === "aes-256-gcm" &&
    typeof header.iv === "string" &&
    typeof kdf.salt === "string";
  if (!valid) throw notBackup();
  if (fileBytes < 12 + length + TAG_BYTES) throw new BackupFileError("the file is cut short");
  return { header, headLength: 12 + length };
}

export function manifestBytes(manifest: BackupManifest): Buffer {
  const json = Buffer.from(JSON.stringify(manifest), "utf8");
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length);
  return Buffer.concat([length, json]);
}
