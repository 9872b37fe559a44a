import { createDecipheriv, randomBytes, scrypt } from "node:crypto";
import sodium from "sodium-native";
import { z } from "zod";
import { BackupFileError, REFUSED } from "./backupFileError.ts";

export { BackupFileError };

/**
 * The backup file: a data directory sealed with a passphrase (README.md beside this file).
 *
 * Format 3, the one written:
 *
 *   "KDBACKUP"                 8 bytes, ASCII
 *   header length              4 bytes, unsigned big-endian
 *   header                     JSON, UTF-8: format, KDF and its parameters, cipher, chunk size, creation time
 *   stream header              24 bytes: libsodium's crypto_secretstream_xchacha20poly1305 header
 *   chunks                     the payload in chunks of CHUNK_BYTES (the last one shorter or as long),
 *                              each sealed by the secretstream with its 17 bytes of tag and MAC;
 *                              the four parts above are the first chunk's additional data, the last
 *                              chunk is marked TAG_FINAL and no other is
 *
 * Every chunk is authenticated before a byte of it is used; a chunk out of place, a missing or
 * early final chunk, or bytes after it fail. The payload's size follows from the file's size.
 *
 * Formats 1 and 2 (read only): the same magic and header (with an IV instead of the chunk size),
 * then AES-256-GCM of the whole payload, its tag at the end. Read twice: once to check the tag
 * (the plaintext thrown away), then to unpack.
 *
 * The key is scrypt(passphrase, salt, N, r, p), within ACCEPTED_KDF. The payload is a 4-byte
 * big-endian length, a JSON manifest (schema version, the files and their sizes), then each
 * file's bytes in the manifest's order: the database (a VACUUM INTO snapshot), the data key and,
 * optionally, the desktop's remote profiles.
 */

const MAGIC = Buffer.from("KDBACKUP", "ascii");
/** Format 1: AES-256-GCM, one tag at the end (read only). */
export const FORMAT_GCM = 1;
/** Format 2: format 1 whose payload may also hold the desktop's remote profiles (read only). */
const FORMAT_GCM_WITH_PROFILES = 2;
/** Format 3: secretstream chunks; its manifest lists the remote profiles when it holds them. */
export const FORMAT = 3;
const FORMATS_READ = [FORMAT_GCM, FORMAT_GCM_WITH_PROFILES, FORMAT];

const SECRETSTREAM_CIPHER = "xchacha20poly1305-secretstream";
/** Plaintext bytes of every chunk but the last. */
export const CHUNK_BYTES = 64 * 1024;
export const GCM_TAG_BYTES = 16;
/** The header's JSON is at most this long. */
const MAX_HEADER_JSON = 4096;
/** The manifest's JSON is at most this long (it is about 120 bytes). */
const MAX_MANIFEST_JSON = 64 * 1024;

/**
 * libsodium's secretstream as sodium-native 5 exposes it: the state is a buffer of STATEBYTES,
 * tags are numbers (@types/sodium-native describes an older API).
 */
interface SecretStream {
  crypto_secretstream_xchacha20poly1305_STATEBYTES: number;
  crypto_secretstream_xchacha20poly1305_HEADERBYTES: number;
  crypto_secretstream_xchacha20poly1305_KEYBYTES: number;
  crypto_secretstream_xchacha20poly1305_ABYTES: number;
  crypto_secretstream_xchacha20poly1305_TAG_MESSAGE: number;
  crypto_secretstream_xchacha20poly1305_TAG_FINAL: number;
  crypto_secretstream_xchacha20poly1305_init_push(state: Buffer, header: Buffer, key: Buffer): void;
  crypto_secretstream_xchacha20poly1305_push(
    state: Buffer,
    ciphertext: Buffer,
    message: Buffer,
    ad: Buffer | null,
    tag: number,
  ): number;
  crypto_secretstream_xchacha20poly1305_init_pull(state: Buffer, header: Buffer, key: Buffer): void;
  crypto_secretstream_xchacha20poly1305_pull(
    state: Buffer,
    message: Buffer,
    tag: Buffer,
    ciphertext: Buffer,
    ad: Buffer | null,
  ): number;
}
/**
 * sodium-native's secretstream, typed as version 5 has it (also for the tests' hand-made files).
 * @internal Exported for tests.
 */
export const stream = sodium as unknown as SecretStream;
const STATE_BYTES = stream.crypto_secretstream_xchacha20poly1305_STATEBYTES;
const STREAM_HEADER_BYTES = stream.crypto_secretstream_xchacha20poly1305_HEADERBYTES;
/** What a chunk adds to its plaintext: its tag byte and its MAC. */
const CHUNK_OVERHEAD = stream.crypto_secretstream_xchacha20poly1305_ABYTES;
const TAG_MESSAGE = stream.crypto_secretstream_xchacha20poly1305_TAG_MESSAGE;
const TAG_FINAL = stream.crypto_secretstream_xchacha20poly1305_TAG_FINAL;
/** A whole sealed chunk (every chunk but the last). */
export const SEALED_CHUNK_BYTES = CHUNK_BYTES + CHUNK_OVERHEAD;
/** Bytes to read from the start of a file to hold any valid head. */
export const HEAD_READ_BYTES = 12 + MAX_HEADER_JSON + STREAM_HEADER_BYTES;

/**
 * The key derivations a reader accepts, checked before deriving: scrypt with r = 8, p = 1 and N a
 * power of two from 2^14 (16 MiB) to 2^18 (256 MiB). Keydesk writes N = 2^17.
 */
const ACCEPTED_KDF = { r: 8, p: 1, minLogN: 14, maxLogN: 18 } as const;
/** Cost of the key derivation written: about half a second and 128 MiB on a laptop of 2025. */
const DEFAULT_KDF = { N: 2 ** 17, r: 8, p: 1 } as const;

/** Base64 of exactly `bytes` bytes, in the canonical (padded) spelling Keydesk writes. */
const base64Of = (bytes: number) =>
  z.string().refine((text) => {
    const decoded = Buffer.from(text, "base64");
    return decoded.length === bytes && decoded.toString("base64") === text;
  });

const kdfSchema = z.strictObject({
  name: z.literal("scrypt"),
  N: z.number().int(),
  r: z.number().int(),
  p: z.number().int(),
  salt: base64Of(16),
});
const createdAtSchema = z.iso.datetime();

const streamHeaderSchema = z.strictObject({
  format: z.literal(FORMAT),
  kdf: kdfSchema,
  cipher: z.literal(SECRETSTREAM_CIPHER),
  chunkBytes: z.literal(CHUNK_BYTES),
  createdAt: createdAtSchema,
});
const gcmHeaderSchema = z.strictObject({
  format: z.union([z.literal(FORMAT_GCM), z.literal(FORMAT_GCM_WITH_PROFILES)]),
  kdf: kdfSchema,
  cipher: z.literal("aes-256-gcm"),
  iv: base64Of(12),
  createdAt: createdAtSchema,
});

export type KdfParameters = z.infer<typeof kdfSchema>;
export type StreamHeader = z.infer<typeof streamHeaderSchema>;
type GcmHeader = z.infer<typeof gcmHeaderSchema>;
/** @internal Exported for tests. */
export type BackupHeader = StreamHeader | GcmHeader;

/** Whether a reader accepts these scrypt parameters (ACCEPTED_KDF). */
function kdfAccepted(kdf: { N: number; r: number; p: number }): boolean {
  const logN = Math.log2(kdf.N);
  return (
    kdf.r === ACCEPTED_KDF.r &&
    kdf.p === ACCEPTED_KDF.p &&
    Number.isInteger(logN) &&
    logN >= ACCEPTED_KDF.minLogN &&
    logN <= ACCEPTED_KDF.maxLogN
  );
}

/** scrypt of the passphrase (NFC); parameters outside ACCEPTED_KDF are refused, not tried. */
export function deriveBackupKey(passphrase: string, kdf: KdfParameters): Promise<Buffer> {
  if (!kdfAccepted(kdf)) return Promise.reject(new BackupFileError(REFUSED.kdf));
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

export function newHeader(now: Date): StreamHeader {
  return {
    format: FORMAT,
    kdf: { name: "scrypt", ...DEFAULT_KDF, salt: randomBytes(16).toString("base64") },
    cipher: SECRETSTREAM_CIPHER,
    chunkBytes: CHUNK_BYTES,
    createdAt: now.toISOString(),
  };
}

/**
 * Magic, header length and header: the start of the clear head.
 * @internal Exported for tests.
 */
export function headerBytes(header: BackupHeader): Buffer {
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length);
  return Buffer.concat([MAGIC, length, json]);
}

export interface ParsedHead {
  header: BackupHeader;
  /** The clear head: the additional data (format 3: the first chunk's; formats 1, 2: GCM's). */
  head: Buffer;
  /** Format 3: the secretstream header (the last bytes of `head`). */
  streamHeader: Buffer | undefined;
}

/**
 * Reads and checks the head of a backup file: `first` is its first HEAD_READ_BYTES bytes (or all
 * of a shorter file), `fileBytes` its size. Refuses, before any key is derived, a header that is
 * not one Keydesk writes: unknown fields, a key derivation outside ACCEPTED_KDF.
 */
export function parseHead(first: Buffer, fileBytes: number): ParsedHead {
  if (first.length < 12 || !first.subarray(0, 8).equals(MAGIC)) throw new BackupFileError(REFUSED.notBackup);
  const length = first.readUInt32BE(8);
  if (length > MAX_HEADER_JSON || first.length < 12 + length) throw new BackupFileError(REFUSED.notBackup);
  let json: unknown;
  try {
    json = JSON.parse(first.subarray(12, 12 + length).toString("utf8"));
  } catch {
    throw new BackupFileError(REFUSED.notBackup);
  }
  const format = (json as { format?: unknown } | null)?.format;
  if (typeof format === "number" && Number.isInteger(format) && format > FORMAT)
    throw new BackupFileError(REFUSED.newerFormat(format, FORMATS_READ));
  const parsed = format === FORMAT ? streamHeaderSchema.safeParse(json) : gcmHeaderSchema.safeParse(json);
  if (!parsed.success) throw new BackupFileError(REFUSED.damaged("its header is not valid"));
  const header = parsed.data;
  if (!kdfAccepted(header.kdf)) throw new BackupFileError(REFUSED.kdf);
  if (header.format !== FORMAT) {
    // At least the manifest's length and the tag.
    if (fileBytes < 12 + length + 4 + GCM_TAG_BYTES) throw new BackupFileError(REFUSED.cutShort);
    return { header, head: first.subarray(0, 12 + length), streamHeader: undefined };
  }
  const headLength = 12 + length + STREAM_HEADER_BYTES;
  // At least one chunk holding the manifest's length.
  if (first.length < headLength || fileBytes < headLength + CHUNK_OVERHEAD + 4)
    throw new BackupFileError(REFUSED.cutShort);
  const head = first.subarray(0, headLength);
  return { header, head, streamHeader: head.subarray(12 + length) };
}

/**
 * Seals a payload into format 3's chunks: `update` takes payload bytes and answers the chunks it
 * completed, `final` the last one. The first chunk carries the clear head as additional data.
 */
export class PayloadSealer {
  /** The clear head to write first: magic, header length, header, stream header. */
  readonly head: Buffer;
  readonly #state = Buffer.alloc(STATE_BYTES);
  readonly #plain = Buffer.alloc(CHUNK_BYTES);
  #filled = 0;
  #first = true;

  constructor(key: Buffer, header: StreamHeader) {
    const streamHeader = Buffer.alloc(STREAM_HEADER_BYTES);
    stream.crypto_secretstream_xchacha20poly1305_init_push(this.#state, streamHeader, key);
    this.head = Buffer.concat([headerBytes(header), streamHeader]);
  }

  /** The chunks `bytes` completes, sealed one after the other into one buffer (maybe empty). */
  update(bytes: Buffer): Buffer {
    // Every full chunk with more bytes after it is sealed now: the last chunk may be a full one.
    const count = Math.max(0, Math.ceil((this.#filled + bytes.length) / CHUNK_BYTES) - 1);
    const sealed = Buffer.allocUnsafe(count * SEALED_CHUNK_BYTES);
    let written = 0;
    let at = 0;
    while (at < bytes.length) {
      if (this.#filled === CHUNK_BYTES) {
        this.#seal(this.#plain, TAG_MESSAGE, sealed.subarray(written, written + SEALED_CHUNK_BYTES));
        written += SEALED_CHUNK_BYTES;
        this.#filled = 0;
      }
      if (this.#filled === 0 && bytes.length - at > CHUNK_BYTES) {
        // A whole chunk with more after it: sealed where it is, not copied first.
        const chunk = bytes.subarray(at, at + CHUNK_BYTES);
        this.#seal(chunk, TAG_MESSAGE, sealed.subarray(written, written + SEALED_CHUNK_BYTES));
        written += SEALED_CHUNK_BYTES;
        at += CHUNK_BYTES;
        continue;
      }
      const copied = bytes.copy(this.#plain, this.#filled, at);
      this.#filled += copied;
      at += copied;
    }
    if (written !== sealed.length)
      throw new Error("PayloadSealer: sealed another number of chunks than counted");
    return sealed;
  }

  final(): Buffer {
    const last = Buffer.allocUnsafe(this.#filled + CHUNK_OVERHEAD);
    this.#seal(this.#plain.subarray(0, this.#filled), TAG_FINAL, last);
    this.#state.fill(0);
    this.#plain.fill(0);
    return last;
  }

  #seal(plain: Buffer, tag: number, into: Buffer): void {
    stream.crypto_secretstream_xchacha20poly1305_push(
      this.#state,
      into,
      plain,
      this.#first ? this.head : null,
      tag,
    );
    this.#first = false;
  }
}

/** Where format 3's chunks are in a file of `fileBytes` whose head is `headLength` long. */
export function chunkLayout(headLength: number, fileBytes: number): { chunks: number; payloadBytes: number } {
  const body = fileBytes - headLength;
  const chunks = Math.ceil(body / SEALED_CHUNK_BYTES);
  const last = body - (chunks - 1) * SEALED_CHUNK_BYTES;
  // Our writer never seals an empty chunk: a last one without plaintext is no chunk of ours.
  if (chunks < 1 || last <= CHUNK_OVERHEAD) throw new BackupFileError(REFUSED.cutShort);
  return { chunks, payloadBytes: body - chunks * CHUNK_OVERHEAD };
}

/**
 * Opens format 3's chunks in order; each is authenticated before its plaintext is answered. The
 * caller says which chunk is the file's last: only that one may, and must, be marked final.
 */
export class PayloadOpener {
  readonly #state = Buffer.alloc(STATE_BYTES);
  readonly #tag = Buffer.alloc(1);
  #head: Buffer | null;

  constructor(key: Buffer, parsed: ParsedHead) {
    if (!parsed.streamHeader) throw new Error("not a format 3 head");
    stream.crypto_secretstream_xchacha20poly1305_init_pull(this.#state, parsed.streamHeader, key);
    this.#head = parsed.head;
  }

  /** The plaintext of `sealed` (a whole chunk), written into `into` (at least CHUNK_BYTES long). */
  open(sealed: Buffer, last: boolean, into: Buffer): Buffer {
    const first = this.#head !== null;
    if (sealed.length <= CHUNK_OVERHEAD || sealed.length > SEALED_CHUNK_BYTES)
      throw new BackupFileError(REFUSED.cutShort);
    const plain = into.subarray(0, sealed.length - CHUNK_OVERHEAD);
    try {
      stream.crypto_secretstream_xchacha20poly1305_pull(this.#state, plain, this.#tag, sealed, this.#head);
    } catch {
      // The first chunk is where a wrong key fails; a later one fails only when it was changed.
      throw new BackupFileError(
        first ? REFUSED.wrongOrDamaged : REFUSED.damaged("a part of it was changed, moved or cut"),
      );
    }
    this.#head = null;
    const tag = this.#tag[0];
    if (tag === TAG_FINAL && !last) throw new BackupFileError(REFUSED.damaged("it goes on after its end"));
    if (tag !== TAG_FINAL && last) throw new BackupFileError(REFUSED.cutShort);
    if (tag !== TAG_FINAL && tag !== TAG_MESSAGE)
      throw new BackupFileError(REFUSED.damaged("a part of it is of an unknown kind"));
    if (last) this.#state.fill(0);
    return plain;
  }
}

/** Formats 1 and 2: AES-256-GCM over the payload, with the head as additional data. */
export function gcmOpener(key: Buffer, parsed: ParsedHead, tag: Buffer) {
  const header = parsed.header as GcmHeader;
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(header.iv, "base64"), {
    authTagLength: GCM_TAG_BYTES,
  });
  decipher.setAAD(parsed.head);
  decipher.setAuthTag(tag);
  return decipher;
}

const manifestSchema = z.strictObject({
  schemaVersion: z
    .number()
    .int()
    .min(1)
    .max(2 ** 31 - 1),
  files: z
    .array(
      z.strictObject({
        name: z.string().max(64),
        bytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
      }),
    )
    .min(2)
    .max(3),
});
export type BackupManifest = z.infer<typeof manifestSchema>;

/**
 * The manifest from its authenticated JSON, checked: the first two of `names` then optionally the
 * third, in that order (the order Keydesk writes them), sizes that are whole non-negative numbers
 * and add up, with the manifest, to the payload's size.
 */
export function parseManifest(json: Buffer, names: readonly string[], payloadBytes: number): BackupManifest {
  let parsed: ReturnType<typeof manifestSchema.safeParse>;
  try {
    parsed = manifestSchema.safeParse(JSON.parse(json.toString("utf8")));
  } catch {
    throw new BackupFileError(REFUSED.damaged("its list of contents cannot be read"));
  }
  if (!parsed.success) throw new BackupFileError(REFUSED.damaged("its list of contents is not valid"));
  const manifest = parsed.data;
  if (!manifest.files.every((file, index) => file.name === names[index]))
    throw new BackupFileError(REFUSED.damaged("a file name in it is invalid"));
  const listed = manifest.files.reduce((sum, file) => sum + file.bytes, 4 + json.length);
  if (listed !== payloadBytes)
    throw new BackupFileError(REFUSED.damaged("its list of contents does not match its size"));
  return manifest;
}

export function manifestBytes(manifest: BackupManifest): Buffer {
  const json = Buffer.from(JSON.stringify(manifest), "utf8");
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length);
  return Buffer.concat([length, json]);
}

/** The manifest's JSON length from the payload's first 4 bytes, bounded. */
export function manifestLength(lengthBytes: Buffer, payloadBytes: number): number {
  const length = lengthBytes.readUInt32BE(0);
  if (length === 0 || length > MAX_MANIFEST_JSON || 4 + length > payloadBytes)
    throw new BackupFileError(REFUSED.damaged("its list of contents is not valid"));
  return length;
}
