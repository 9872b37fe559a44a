import { once } from "node:events";
import {
  chmodSync,
  closeSync,
  createReadStream,
  createWriteStream,
  existsSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import type { Writable } from "node:stream";
import { DataKeyError, decodeDataKey, readKeyFile } from "../crypto/dataKey.ts";
import { fileExists } from "../crypto/privateFile.ts";
import { createSecretBox } from "../crypto/secretBox.ts";
import { DATA_KEY_FILE, DATABASE_FILE } from "../dataDir.ts";
import { CLAIM_FILE, claimDataDir, type DataDirClaim } from "../dataDirClaim.ts";
import { SCHEMA_VERSION } from "../store/database.ts";
import { checkDatabase } from "../store/databaseHealth.ts";
import {
  countKeysAndAccounts,
  type Db,
  isSqliteError,
  openDatabaseFile,
  resealFileUnderNewKey,
  schemaVersionOf,
  snapshotDatabase,
  storedKeyCheck,
} from "../store/sqliteFile.ts";
import { BackupFileError, REFUSED } from "./backupFileError.ts";
import {
  type BackupManifest,
  CHUNK_BYTES,
  chunkLayout,
  deriveBackupKey,
  FORMAT,
  FORMAT_GCM,
  GCM_TAG_BYTES,
  gcmOpener,
  HEAD_READ_BYTES,
  manifestBytes,
  manifestLength,
  newHeader,
  type ParsedHead,
  PayloadOpener,
  PayloadSealer,
  parseHead,
  parseManifest,
  SEALED_CHUNK_BYTES,
} from "./backupFormat.ts";
import { checkRestoredSchema } from "./restoredSchema.ts";

/**
 * `key-service backup` and `restore`: a consistent snapshot of a data directory (VACUUM INTO: one
 * read transaction, so a running service goes on writing and every write it answered before the
 * backup began is in it), sealed with a passphrase (backupFormat.ts); and its restore, which uses
 * no byte of the file before it is authenticated, stages beside the target and renames into place
 * only once whole and verified.
 */

/**
 * The payload's files, in the order written: the database and its data key (always), then the
 * desktop's remote profiles with their passwords (only when the admin asked for them; formats 2
 * and 3 only). The CLI neither writes nor restores it: a restore hands it back to its caller,
 * never leaves it in the data directory.
 */
export const REMOTE_PROFILES_FILE = "profiles.json";

/** The payload's file names a format may list, in their order. */
const payloadNames = (format: number) =>
  format === FORMAT_GCM
    ? [DATABASE_FILE, DATA_KEY_FILE]
    : [DATABASE_FILE, DATA_KEY_FILE, REMOTE_PROFILES_FILE];

/** Bytes read at once: the snapshot to seal, an old (format 1 or 2) file to open. */
const READ_BYTES = 1024 * 1024;

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
    snapshotDatabase(source, snapshot, (check) => {
      if (check !== undefined && check !== createSecretBox(dataKey).checkValue)
        throw new Error(
          "the data key given is not the one this database was created with; nothing was written",
        );
    });
    const counted = openDatabaseFile(snapshot, { readonly: true });
    const schemaVersion = schemaVersionOf(counted);
    const { keys, accounts } = countKeysAndAccounts(counted);
    counted.close();
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
    const header = newHeader(options.now ?? new Date());
    const key = await deriveBackupKey(options.passphrase, header.kdf);
    const sealer = new PayloadSealer(key, header);
    key.fill(0);
    const partial = join(staging, "backup");
    const output = createWriteStream(partial, { mode: 0o600 });
    const seal = async (bytes: Buffer) => {
      const sealed = sealer.update(bytes);
      if (sealed.length > 0) await write(output, sealed);
    };
    await write(output, sealer.head);
    await seal(manifestBytes(manifest));
    for await (const chunk of createReadStream(snapshot, { highWaterMark: READ_BYTES })) {
      await seal(chunk as Buffer);
      progressed((chunk as Buffer).length);
    }
    await seal(keyText);
    for (const file of extras) await seal(file.body);
    progressed(keyText.length + extras.reduce((sum, file) => sum + file.body.length, 0));
    await write(output, sealer.final());
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

/** Whether the directory holds anything (a missing one holds nothing); a file is no directory to restore into. */
function holdsData(dir: string): boolean {
  try {
    // The claim file alone is no data: a restore's own claim on the dir makes it.
    return readdirSync(dir).some((name) => !name.startsWith(CLAIM_FILE));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return false;
    if (code === "ENOTDIR")
      throw new Error(
        `${dir} is not a directory (a file is there or on its path): restore into an empty or new directory; nothing was written`,
      );
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
  const refuseHeldData = () => {
    if (holdsData(target) && !options.force)
      throw new Error(
        `${target} holds data; restore into an empty or new directory, or add --force to restore over it (its data is then kept beside it)`,
      );
  };
  refuseHeldData();
  // A FIFO or a device would block the open itself: only a regular file is opened.
  const named = await stat(options.input).catch(() => undefined);
  if (named !== undefined && !named.isFile()) throw new BackupFileError("it is not a file");
  const input = await open(options.input, "r");
  let claim: DataDirClaim | undefined;
  /** The target was made by this restore (to claim it): a failed restore takes it away again. */
  let madeTarget = false;
  // Made once the first bytes of the payload are authenticated: a refusal before leaves nothing.
  let staging: string | undefined;
  const stagingDir = () => {
    if (staging === undefined) {
      // A target not there yet is made and claimed before the first file is unpacked (never before
      // a byte is authenticated), so that no service starts a database of its own in it meanwhile.
      if (claim === undefined) {
        if (!existsSync(target)) {
          mkdirSync(target, { recursive: true, mode: 0o700 });
          madeTarget = true;
        }
        claim = claimDataDir(target, "alone");
      }
      staging = mkdtempSync(join(dirname(target), `.${basename(target)}.restoring-`));
      chmodSync(staging, 0o700);
    }
    return staging;
  };
  try {
    // A service running on the target would go on writing the data moved aside: refused, and none
    // starts meanwhile. (A target not there yet is claimed with the staging dir: stagingDir.)
    if (existsSync(target)) claim = claimDataDir(target, "alone");
    const opened = await input.stat();
    if (!opened.isFile()) throw new BackupFileError("it is not a file");
    const size = opened.size;
    const first = Buffer.alloc(Math.min(size, HEAD_READ_BYTES));
    await readFully(input, first, 0);
    const parsed = parseHead(first, size);
    const key = await deriveBackupKey(options.passphrase, parsed.header.kdf);
    let manifest: BackupManifest;
    try {
      const source = { input, size, parsed, key, stagingDir, onProgress: options.onProgress };
      manifest = parsed.header.format === FORMAT ? await unpackStream(source) : await unpackGcm(source);
    } finally {
      key.fill(0);
    }
    const dir = stagingDir();
    const counts = verifyRestored(dir, manifest);
    const extras = new Map<string, Buffer>();
    for (const file of manifest.files) {
      if (file.name !== REMOTE_PROFILES_FILE) continue;
      extras.set(file.name, readFileSync(join(dir, file.name)));
      rmSync(join(dir, file.name));
    }
    if (options.dataKeyBase64 !== undefined) {
      // The target keeps its data key in its environment: everything is sealed again under that one.
      const fromKey = readKeyFile(join(dir, DATA_KEY_FILE));
      const to = createSecretBox(decodeDataKey(options.dataKeyBase64, "KEY_SERVICE_DATA_KEY"));
      if (createSecretBox(fromKey).checkValue !== to.checkValue) {
        resealFileUnderNewKey(join(dir, DATABASE_FILE), fromKey, to);
      }
      rmSync(join(dir, DATA_KEY_FILE));
    }
    // Again at the end: what was written into the target meanwhile is not moved aside without --force.
    refuseHeldData();
    // Before the renames: an open file would keep a directory from being renamed on Windows.
    claim?.release();
    let previous: string | undefined;
    if (holdsData(target)) {
      previous = `${target}.before-restore-${(options.now ?? new Date()).toISOString().replace(/[:.]/g, "-")}`;
      renameSync(target, previous);
    } else {
      rmSync(target, { recursive: true, force: true });
    }
    renameSync(dir, target);
    staging = undefined;
    return { dataDir: target, previous, ...counts, createdAt: parsed.header.createdAt, extras };
  } catch (error) {
    if (staging !== undefined) rmSync(staging, { recursive: true, force: true });
    claim?.release();
    claim = undefined;
    if (madeTarget && !holdsData(target)) rmSync(target, { recursive: true, force: true });
    throw error;
  } finally {
    claim?.release();
    await input.close();
  }
}

/** A backup file being restored: its head, the key it opens with, where its files go. */
interface Source {
  input: FileHandle;
  size: number;
  parsed: ParsedHead;
  key: Buffer;
  stagingDir: () => string;
  onProgress: ProgressListener | undefined;
}

/** Chunks read at once after the first (1 MiB). */
const READ_CHUNKS = 16;

/**
 * Format 3: chunk by chunk, each authenticated (PayloadOpener) before its bytes reach the
 * manifest's parser or a file. The first chunk is read alone: with a wrong passphrase, nothing
 * more is read.
 */
async function unpackStream(source: Source): Promise<BackupManifest> {
  const { input, size, parsed } = source;
  const { chunks, payloadBytes } = chunkLayout(parsed.head.length, size);
  const opener = new PayloadOpener(source.key, parsed);
  const unpacker = new PayloadUnpacker(payloadBytes, payloadNames(parsed.header.format), source.stagingDir);
  const sealed = Buffer.allocUnsafe(SEALED_CHUNK_BYTES * READ_CHUNKS);
  const plain = Buffer.allocUnsafe(CHUNK_BYTES);
  try {
    let position = parsed.head.length;
    for (let index = 0; index < chunks; ) {
      const count = index === 0 ? 1 : Math.min(READ_CHUNKS, chunks - index);
      const bytes = Math.min(count * SEALED_CHUNK_BYTES, size - position);
      await readFully(input, sealed.subarray(0, bytes), position);
      position += bytes;
      source.onProgress?.(position, size);
      for (let at = 0; at < bytes; at += SEALED_CHUNK_BYTES, index++) {
        const chunk = sealed.subarray(at, Math.min(at + SEALED_CHUNK_BYTES, bytes));
        await unpacker.write(opener.open(chunk, index === chunks - 1, plain));
      }
    }
    return unpacker.end();
  } finally {
    plain.fill(0);
    await unpacker.close();
  }
}

/**
 * Formats 1 and 2, whose one GCM tag is at the end: the whole file is deciphered once into
 * nothing to check the tag, and only then again into the staging directory (where the tag is
 * checked once more: a file changed between the two passes is refused there). Progress counts
 * both passes.
 */
async function unpackGcm(source: Source): Promise<BackupManifest> {
  const { input, size, parsed } = source;
  const tag = Buffer.alloc(GCM_TAG_BYTES);
  await readFully(input, tag, size - GCM_TAG_BYTES);
  const start = parsed.head.length;
  const payloadBytes = size - start - GCM_TAG_BYTES;
  const buffer = Buffer.allocUnsafe(READ_BYTES);
  const pass = async (base: number, use: (plain: Buffer) => Promise<void> | undefined) => {
    const decipher = gcmOpener(source.key, parsed, tag);
    for (let at = 0; at < payloadBytes; ) {
      const bytes = Math.min(READ_BYTES, payloadBytes - at);
      await readFully(input, buffer.subarray(0, bytes), start + at);
      at += bytes;
      const plain = decipher.update(buffer.subarray(0, bytes));
      await use(plain);
      source.onProgress?.(base + start + at, 2 * size);
    }
    try {
      decipher.final();
    } catch {
      throw new BackupFileError(REFUSED.wrongOrDamaged);
    }
  };
  await pass(0, () => undefined);
  const unpacker = new PayloadUnpacker(payloadBytes, payloadNames(parsed.header.format), source.stagingDir);
  try {
    await pass(size, (plain) => unpacker.write(plain));
    source.onProgress?.(2 * size, 2 * size);
    return unpacker.end();
  } finally {
    await unpacker.close();
  }
}

/** Reads exactly `into.length` bytes at `position`; a file shorter than it was is cut short. */
async function readFully(input: FileHandle, into: Buffer, position: number): Promise<void> {
  for (let done = 0; done < into.length; ) {
    const { bytesRead } = await input.read(into, done, into.length - done, position + done);
    if (bytesRead === 0) throw new BackupFileError(REFUSED.cutShort);
    done += bytesRead;
  }
}

/**
 * Writes an authenticated payload into the staging directory as it comes: first the manifest
 * (its 4-byte length, at most 64 KiB of JSON, checked against the payload's size before any file
 * is made), then each file's bytes. Memory: the manifest, nothing else.
 */
class PayloadUnpacker {
  readonly #payloadBytes: number;
  readonly #names: readonly string[];
  readonly #dir: () => string;
  readonly #length = Buffer.alloc(4);
  #lengthFilled = 0;
  #json: Buffer | undefined;
  #jsonFilled = 0;
  #manifest: BackupManifest | undefined;
  #index = -1;
  #left = 0;
  #out: FileHandle | undefined;

  constructor(payloadBytes: number, names: readonly string[], dir: () => string) {
    this.#payloadBytes = payloadBytes;
    this.#names = names;
    this.#dir = dir;
  }

  async write(plain: Buffer): Promise<void> {
    let at = 0;
    while (at < plain.length) {
      if (!this.#manifest) {
        at = this.#takeManifest(plain, at);
        if (this.#manifest) await this.#next();
        continue;
      }
      const out = this.#out;
      if (!out) throw new BackupFileError(REFUSED.damaged("it holds more than its list of contents"));
      const part = plain.subarray(at, at + Math.min(this.#left, plain.length - at));
      for (let done = 0; done < part.length; )
        done += (await out.write(part, done, part.length - done)).bytesWritten;
      at += part.length;
      this.#left -= part.length;
      if (this.#left === 0) await this.#next();
    }
  }

  /** The manifest, once the whole payload came in. */
  end(): BackupManifest {
    if (!this.#manifest || this.#out || this.#index < this.#manifest.files.length)
      throw new BackupFileError(REFUSED.cutShort);
    return this.#manifest;
  }

  async close(): Promise<void> {
    await this.#out?.close();
    this.#out = undefined;
  }

  #takeManifest(plain: Buffer, from: number): number {
    let at = from;
    if (this.#lengthFilled < 4) {
      const copied = plain.copy(this.#length, this.#lengthFilled, at, at + 4 - this.#lengthFilled);
      this.#lengthFilled += copied;
      at += copied;
      if (this.#lengthFilled < 4) return at;
      this.#json = Buffer.alloc(manifestLength(this.#length, this.#payloadBytes));
    }
    const json = this.#json as Buffer;
    const copied = plain.copy(json, this.#jsonFilled, at, at + json.length - this.#jsonFilled);
    this.#jsonFilled += copied;
    if (this.#jsonFilled === json.length) {
      const manifest = parseManifest(json, this.#names, this.#payloadBytes);
      if (manifest.schemaVersion > SCHEMA_VERSION)
        throw new BackupFileError(REFUSED.newerSchema(manifest.schemaVersion, SCHEMA_VERSION));
      this.#manifest = manifest;
    }
    return at + copied;
  }

  /** Closes the file written, and opens the next one the manifest lists (an empty one is made at once). */
  async #next(): Promise<void> {
    const files = (this.#manifest as BackupManifest).files;
    for (;;) {
      await this.close();
      this.#index += 1;
      const file = files[this.#index];
      if (!file) return;
      this.#out = await open(join(this.#dir(), file.name), "wx", 0o600);
      this.#left = file.bytes;
      if (file.bytes > 0) return;
    }
  }
}

/**
 * The restored database is sound, holds exactly the schema Keydesk makes for its version
 * (restoredSchema.ts: checked before anything writes to it, so none of its triggers ever runs)
 * and opens with the data key it is restored with.
 */
function verifyRestored(dir: string, manifest: BackupManifest): { keys: number; accounts: number } {
  let db: Db | undefined;
  try {
    db = openDatabaseFile(join(dir, DATABASE_FILE));
    const problems = checkDatabase(db, { limit: 3 });
    if (problems.length > 0)
      throw new BackupFileError(
        REFUSED.damaged(`its database fails SQLite's check: ${problems.join("; ").replace(/\s+/g, " ")}`),
      );
    checkRestoredSchema(db, manifest.schemaVersion);
    const check = storedKeyCheck(db);
    if (check !== undefined && check !== createSecretBox(readKeyFile(join(dir, DATA_KEY_FILE))).checkValue)
      throw new BackupFileError(REFUSED.damaged("its data key does not open its database"));
    return countKeysAndAccounts(db);
  } catch (error) {
    if (!(isSqliteError(error) || error instanceof DataKeyError)) throw error;
    // Not an SQLite database, or a data key that is no key: the file was sealed so.
    throw new BackupFileError(REFUSED.damaged("its database or its data key cannot be read"));
  } finally {
    db?.close();
  }
}
