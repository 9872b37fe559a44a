import { once } from "node:events";
import {
  chmodSync,
  closeSync,
  createReadStream,
  createWriteStream,
  fsyncSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { Writable } from "node:stream";
import Database from "better-sqlite3";
import { decodeDataKey, readKeyFile } from "../crypto/dataKey.ts";
import { fileExists } from "../crypto/privateFile.ts";
import { createSecretBox } from "../crypto/secretBox.ts";
import { DATA_KEY_FILE, DATABASE_FILE, KEY_CHECK } from "../dataDir.ts";
import { checkDatabase } from "../store/databaseHealth.ts";
import { resealUnderNewKey } from "../store/sqliteReseal.ts";
import {
  BackupFileError,
  type BackupManifest,
  deriveBackupKey,
  FORMAT,
  FORMAT_WITH_PROFILES,
  headBytes,
  manifestBytes,
  newHeader,
  opener,
  parseHead,
  sealer,
  TAG_LENGTH,
} from "./backupFormat.ts";

/**
 * `key-service backup` and `restore`: a consistent snapshot of a data directory (VACUUM INTO: one
 * read transaction, so a running service goes on writing and every write it answered before the
 * backup began is in it), sealed with a passphrase (backupFormat.ts); and its restore, staged
 * beside the target and renamed into place only once whole and verified.
 */

/**
 * The payload's files a reader accepts, by format, each at most once: the database and its data
 * key (always), and in format 2 the desktop's remote profiles with their passwords (only when the
 * admin asked for them; the CLI neither writes nor restores it: a restore hands it back to its
 * caller, never leaves it in the data directory).
 */
export const REMOTE_PROFILES_FILE = "profiles.json";
const PAYLOAD_FILES: Record<number, Set<string>> = {
  [FORMAT]: new Set([DATABASE_FILE, DATA_KEY_FILE]),
  [FORMAT_WITH_PROFILES]: new Set([DATABASE_FILE, DATA_KEY_FILE, REMOTE_PROFILES_FILE]),
};

/** Bytes done of a total, for a progress bar (written for a backup, read for a restore). */
export type ProgressListener = (done: number, total: number) => void;

export interface BackupResult {
  file: string;
  bytes: number;
  keys: number;
  accounts: number;
}

/** The data key of a data directory: KEY_SERVICE_DATA_KEY when given, else its data.key file. */
function dataKeyOf(dataDir: string, dataKeyBase64: string | undefined): Buffer {
  return dataKeyBase64 !== undefined
    ? decodeDataKey(dataKeyBase64, "KEY_SERVICE_DATA_KEY")
    : readKeyFile(join(dataDir, DATA_KEY_FILE));
}

function storedKeyCheck(db: Database.Database): string | undefined {
  return (db.prepare("SELECT value FROM meta WHERE name = ?").get(KEY_CHECK) as { value: string } | undefined)
    ?.value;
}

export async function backupDataDir(options: {
  dataDir: string;
  out: string;
  passphrase: string;
  dataKeyBase64?: string | undefined;
  now?: Date;
  /** Optional payload files after the data key (only REMOTE_PROFILES_FILE today). */
  extraFiles?: { name: typeof REMOTE_PROFILES_FILE; body: Buffer }[];
  onProgress?: ProgressListener;
}): Promise<BackupResult> {
  const source = join(options.dataDir, DATABASE_FILE);
  if (!fileExists(source)) throw new Error(`there is no database at ${source}: nothing to back up`);
  const out = resolve(options.out);
  const staging = mkdtempSync(join(dirname(out), `.${basename(out)}.partial-`));
  try {
    const snapshot = join(staging, DATABASE_FILE);
    const dataKey = dataKeyOf(options.dataDir, options.dataKeyBase64);
    const db = new Database(source, { fileMustExist: true });
    try {
      db.pragma("busy_timeout = 5000");
      const check = storedKeyCheck(db);
      if (check !== undefined && check !== createSecretBox(dataKey).checkValue)
        throw new Error(
          "the data key given is not the one this database was created with; nothing was written",
        );
      db.prepare("VACUUM INTO ?").run(snapshot);
    } finally {
      db.close();
    }
    const counts = new Database(snapshot, { readonly: true });
    const schemaVersion = counts.pragma("user_version", { simple: true }) as number;
    const keys = (counts.prepare("SELECT count(*) AS n FROM api_keys").get() as { n: number }).n;
    const accounts = (counts.prepare("SELECT count(*) AS n FROM accounts").get() as { n: number }).n;
    counts.close();
    const keyText = Buffer.from(dataKey.toString("base64"), "utf8");
    const extras = options.extraFiles ?? [];
    const manifest: BackupManifest = {
      schemaVersion,
      files: [
        { name: DATABASE_FILE, bytes: statSync(snapshot).size },
        { name: DATA_KEY_FILE, bytes: keyText.length },
        ...extras.map((file) => ({ name: file.name, bytes: file.body.length })),
      ],
    };
    const total = manifest.files.reduce((sum, file) => sum + file.bytes, 0);
    let done = 0;
    const progressed = (bytes: number) => {
      done += bytes;
      options.onProgress?.(done, total);
    };
    const header = newHeader(
      options.now ?? new Date(),
      undefined,
      extras.length > 0 ? FORMAT_WITH_PROFILES : FORMAT,
    );
    const head = headBytes(header);
    const key = await deriveBackupKey(options.passphrase, header.kdf);
    const cipher = sealer(key, header, head);
    const partial = join(staging, "backup");
    const output = createWriteStream(partial, { mode: 0o600 });
    await write(output, head);
    await write(output, cipher.update(manifestBytes(manifest)));
    for await (const chunk of createReadStream(snapshot)) {
      await write(output, cipher.update(chunk as Buffer));
      progressed((chunk as Buffer).length);
    }
    await write(output, keyText.length > 0 ? cipher.update(keyText) : Buffer.alloc(0));
    for (const file of extras) await write(output, cipher.update(file.body));
    progressed(keyText.length + extras.reduce((sum, file) => sum + file.body.length, 0));
    await write(output, Buffer.concat([cipher.final(), cipher.getAuthTag()]));
    output.end();
    await once(output, "close");
    syncFile(partial);
    renameSync(partial, out);
    return { file: out, bytes: statSync(out).size, keys, accounts };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

async function write(stream: Writable, bytes: Buffer): Promise<void> {
  if (!stream.write(bytes)) await once(stream, "drain");
}

function syncFile(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export interface RestoreResult {
  dataDir: string;
  /** Where the data that was in the directory went (with --force), if it held any. */
  previous: string | undefined;
  keys: number;
  accounts: number;
  createdAt: string;
  /** The optional payload files the backup held (REMOTE_PROFILES_FILE), for the caller to use. */
  extras: Map<string, Buffer>;
}

/** Whether the directory holds anything (a missing one holds nothing). */
function holdsData(dir: string): boolean {
  try {
    return readdirSync(dir).length > 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

export async function restoreDataDir(options: {
  input: string;
  dataDir: string;
  passphrase: string;
  force?: boolean;
  dataKeyBase64?: string | undefined;
  now?: Date;
  onProgress?: ProgressListener;
}): Promise<RestoreResult> {
  const target = resolve(options.dataDir);
  if (holdsData(target) && !options.force)
    throw new Error(
      `${target} holds data; restore into an empty or new directory, or add --force to restore over it (its data is then kept beside it)`,
    );
  const size = statSync(options.input).size;
  const fd = openSync(options.input, "r");
  let header: ReturnType<typeof parseHead>["header"];
  let headLength: number;
  const tag = Buffer.alloc(TAG_LENGTH);
  let head: Buffer;
  try {
    const first = Buffer.alloc(Math.min(size, 12 + 64 * 1024));
    readSync(fd, first, 0, first.length, 0);
    ({ header, headLength } = parseHead(first, size));
    head = first.subarray(0, headLength);
    readSync(fd, tag, 0, TAG_LENGTH, size - TAG_LENGTH);
  } finally {
    closeSync(fd);
  }
  const key = await deriveBackupKey(options.passphrase, header.kdf);
  const staging = mkdtempSync(join(dirname(target), `.${basename(target)}.restoring-`));
  try {
    chmodSync(staging, 0o700);
    const input = createReadStream(options.input, { start: headLength, end: size - TAG_LENGTH - 1 });
    if (options.onProgress) {
      let read = headLength + TAG_LENGTH;
      input.on("data", (chunk) => {
        read += chunk.length;
        options.onProgress?.(read, size);
      });
    }
    const manifest = await unpack(
      input.pipe(opener(key, header, head, tag)),
      staging,
      PAYLOAD_FILES[header.format] ?? new Set(),
    );
    const counts = verifyRestored(staging, manifest);
    const extras = new Map<string, Buffer>();
    for (const file of manifest.files) {
      if (file.name !== REMOTE_PROFILES_FILE) continue;
      extras.set(file.name, readFileSync(join(staging, file.name)));
      rmSync(join(staging, file.name));
    }
    if (options.dataKeyBase64 !== undefined) {
      // The target keeps its data key in its environment: everything is sealed under that one.
      const fromKey = readKeyFile(join(staging, DATA_KEY_FILE));
      const to = createSecretBox(decodeDataKey(options.dataKeyBase64, "KEY_SERVICE_DATA_KEY"));
      if (createSecretBox(fromKey).checkValue !== to.checkValue) {
        const db = new Database(join(staging, DATABASE_FILE), { fileMustExist: true });
        try {
          resealUnderNewKey(db, fromKey, to);
          db.pragma("wal_checkpoint(TRUNCATE)");
        } finally {
          db.close();
        }
      }
      rmSync(join(staging, DATA_KEY_FILE));
    }
    let previous: string | undefined;
    if (holdsData(target)) {
      previous = `${target}.before-restore-${(options.now ?? new Date()).toISOString().replace(/[:.]/g, "-")}`;
      renameSync(target, previous);
    } else {
      rmSync(target, { recursive: true, force: true });
    }
    renameSync(staging, target);
    return { dataDir: target, previous, ...counts, createdAt: header.createdAt, extras };
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if ((error as Error).message.includes("unable to authenticate data"))
      throw new BackupFileError("the passphrase is wrong, or the file is damaged; nothing was written");
    throw error;
  }
}

/**
 * Writes the payload's files into `dir` as they are deciphered. GCM's tag is checked at the end
 * of the stream: nothing written here is used before then (the caller renames only after).
 */
async function unpack(
  plain: AsyncIterable<Buffer>,
  dir: string,
  accepted: ReadonlySet<string>,
): Promise<BackupManifest> {
  let pending: Buffer = Buffer.alloc(0);
  let manifest: BackupManifest | undefined;
  let index = 0;
  let left = 0;
  let out: Writable | undefined;
  const next = async () => {
    if (out) {
      out.end();
      await once(out, "close");
      out = undefined;
    }
    const file = manifest?.files[index];
    if (!file) return;
    if (!accepted.has(file.name) || manifest?.files.findIndex((each) => each.name === file.name) !== index)
      throw new BackupFileError("the file is damaged (a file name in it is invalid)");
    out = createWriteStream(join(dir, file.name), { mode: 0o600 });
    left = file.bytes;
  };
  for await (const chunk of plain) {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    if (!manifest) {
      if (pending.length < 4) continue;
      const length = pending.readUInt32BE(0);
      if (pending.length < 4 + length) continue;
      manifest = JSON.parse(pending.subarray(4, 4 + length).toString("utf8")) as BackupManifest;
      pending = pending.subarray(4 + length);
      await next();
    }
    while (pending.length > 0 && out) {
      const part = pending.subarray(0, left);
      pending = pending.subarray(part.length);
      left -= part.length;
      if (!out.write(part)) await once(out, "drain");
      if (left === 0) {
        index += 1;
        await next();
      }
    }
    if (pending.length > 0 && !out)
      throw new BackupFileError("the file is damaged (more data than its contents list)");
  }
  while (out && left === 0) {
    index += 1;
    await next();
  }
  if (!manifest || out || index < manifest.files.length) throw new BackupFileError("the file is cut short");
  return manifest;
}

/** The restored database is sound and opens with the data key it is restored with. */
function verifyRestored(dir: string, manifest: BackupManifest): { keys: number; accounts: number } {
  if (!manifest.files.some((file) => file.name === DATABASE_FILE))
    throw new BackupFileError("the file holds no database");
  const db = new Database(join(dir, DATABASE_FILE), { fileMustExist: true });
  try {
    const problems = checkDatabase(db, { limit: 3 });
    if (problems.length > 0)
      throw new BackupFileError(`the database in the backup is damaged (${problems.join("; ")})`);
    const check = storedKeyCheck(db);
    if (check !== undefined && check !== createSecretBox(readKeyFile(join(dir, DATA_KEY_FILE))).checkValue)
      throw new BackupFileError("the backup's data key does not open its database: the file is damaged");
    return {
      keys: (db.prepare("SELECT count(*) AS n FROM api_keys").get() as { n: number }).n,
      accounts: (db.prepare("SELECT count(*) AS n FROM accounts").get() as { n: number }).n,
    };
  } finally {
    db.close();
  }
}
