import { createCipheriv, randomBytes, scrypt } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";

/**
 * Backup files of formats 1 and 2 written exactly as Keydesk wrote them before format 3 (the
 * writer of electron/service/backup/backupFormat.ts and backupDataDir.ts at 5815750), so that
 * their restore, and attacks on them, stay testable now that Keydesk writes format 3 only.
 *
 *   "KDBACKUP" | header length (4, BE) | header JSON | AES-256-GCM(payload), head as AAD | tag (16)
 *   payload: manifest length (4, BE) | manifest JSON | each file's bytes in the manifest's order
 */

const MAGIC = Buffer.from("KDBACKUP", "ascii");

export interface OldKdf {
  N: number;
  r: number;
  p: number;
}

/** The cheapest scrypt a reader accepts (2^14, 16 MiB): tests derive keys in milliseconds. */
export const CHEAP_KDF: OldKdf = { N: 2 ** 14, r: 8, p: 1 };

/** What the old code wrote: N = 2^17, r = 8, p = 1. */
export const OLD_DEFAULT_KDF: OldKdf = { N: 2 ** 17, r: 8, p: 1 };

export interface OldBackup {
  bytes: Buffer;
  /** Where the ciphertext begins (after magic, length and header). */
  headLength: number;
  /** The payload as sealed (manifest length, manifest, files). */
  payload: Buffer;
  /** The manifest's JSON text. */
  manifestJson: string;
}

function derive(passphrase: string, salt: Buffer, kdf: OldKdf): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      passphrase.normalize("NFC"),
      salt,
      32,
      { N: kdf.N, r: kdf.r, p: kdf.p, maxmem: 256 * kdf.N * kdf.r + 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
}

const lengthOf = (bytes: Buffer) => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return length;
};

/**
 * A format 1 or 2 file of these payload files; `manifestJson` replaces the manifest the files
 * make, `header` changes fields of the header (after the key is derived with `kdf`).
 */
export async function writeOldBackup(options: {
  passphrase: string;
  format: 1 | 2;
  files: { name: string; body: Buffer }[];
  schemaVersion?: number;
  kdf?: OldKdf;
  manifestJson?: string;
  header?: Record<string, unknown>;
  now?: Date;
}): Promise<OldBackup> {
  const kdf = options.kdf ?? OLD_DEFAULT_KDF;
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const header = {
    format: options.format,
    kdf: { name: "scrypt", ...kdf, salt: salt.toString("base64") },
    cipher: "aes-256-gcm",
    iv: iv.toString("base64"),
    createdAt: (options.now ?? new Date()).toISOString(),
    ...options.header,
  };
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const head = Buffer.concat([MAGIC, lengthOf(json), json]);
  const manifestJson =
    options.manifestJson ??
    JSON.stringify({
      schemaVersion: options.schemaVersion ?? 1,
      files: options.files.map((file) => ({ name: file.name, bytes: file.body.length })),
    });
  const manifest = Buffer.from(manifestJson, "utf8");
  const payload = Buffer.concat([lengthOf(manifest), manifest, ...options.files.map((file) => file.body)]);
  const cipher = createCipheriv("aes-256-gcm", await derive(options.passphrase, salt, kdf), iv);
  cipher.setAAD(head);
  const sealed = Buffer.concat([cipher.update(payload), cipher.final()]);
  return {
    bytes: Buffer.concat([head, sealed, cipher.getAuthTag()]),
    headLength: head.length,
    payload,
    manifestJson,
  };
}

/** An old backup of a data directory (database snapshot and data.key), as `key-service backup` made it. */
export async function oldBackupOfDataDir(options: {
  dataDir: string;
  passphrase: string;
  format: 1 | 2;
  extraFiles?: { name: string; body: Buffer }[];
  kdf?: OldKdf;
}): Promise<OldBackup> {
  const snapshot = join(options.dataDir, `old-backup-snapshot-${randomBytes(4).toString("hex")}`);
  const source = new Database(join(options.dataDir, "keydesk.db"), { fileMustExist: true });
  try {
    source.prepare("VACUUM INTO ?").run(snapshot);
  } finally {
    source.close();
  }
  try {
    const copy = new Database(snapshot, { readonly: true });
    const schemaVersion = copy.pragma("user_version", { simple: true }) as number;
    copy.close();
    const dataKey = Buffer.from(readFileSync(join(options.dataDir, "data.key"), "utf8").trim(), "base64");
    const keyText = Buffer.from(dataKey.toString("base64"), "utf8");
    return await writeOldBackup({
      passphrase: options.passphrase,
      format: options.format,
      schemaVersion,
      ...(options.kdf && { kdf: options.kdf }),
      files: [
        { name: "keydesk.db", body: readFileSync(snapshot) },
        { name: "data.key", body: keyText },
        ...(options.extraFiles ?? []),
      ],
    });
  } finally {
    rmSync(snapshot, { force: true });
  }
}

/**
 * Without the passphrase: XORs into the ciphertext what turns the known plaintext `from` into
 * `to` (same length) at its place in the payload (GCM, like any stream cipher, is malleable until
 * its tag is checked).
 */
export function flipOldPayload(backup: OldBackup, from: string, to: string): Buffer {
  return flipAt(backup.bytes, backup.headLength + payloadOffset(backup.payload, from), from, to);
}

/** Where `text` is in a payload (it must be there). */
export function payloadOffset(payload: Buffer, text: string): number {
  const at = payload.indexOf(Buffer.from(text, "utf8"));
  if (at < 0) throw new Error(`${text} is not in the payload`);
  return at;
}

/** XORs `from` ^ `to` into `bytes` at `at`: the ciphertext of `from` deciphers as `to`. */
export function flipAt(bytes: Buffer, at: number, from: string, to: string): Buffer {
  const a = Buffer.from(from, "utf8");
  const b = Buffer.from(to, "utf8");
  if (a.length !== b.length) throw new Error("the texts must be as long");
  const out = Buffer.from(bytes);
  for (let i = 0; i < a.length; i++)
    out[at + i] = (out[at + i] as number) ^ (a[i] as number) ^ (b[i] as number);
  return out;
}
