import {
  CHUNK_BYTES,
  deriveBackupKey,
  headerBytes,
  newHeader,
  PayloadOpener,
  parseHead,
  SEALED_CHUNK_BYTES,
  type StreamHeader,
  stream,
} from "../../electron/service/backup/backupFormat.ts";
import { CHEAP_KDF } from "./oldBackupFormat.ts";

/**
 * Format 3 files made by hand for tests: any payload, any chunking and any chunk tags, sealed with
 * libsodium's secretstream as Keydesk seals them (the first chunk carries the clear head as its
 * additional data), under the cheapest key derivation a reader accepts.
 */

export { CHEAP_KDF };

export const TAG_MESSAGE = stream.crypto_secretstream_xchacha20poly1305_TAG_MESSAGE;
export const TAG_FINAL = stream.crypto_secretstream_xchacha20poly1305_TAG_FINAL;

/** The payload Keydesk seals: manifest length, manifest JSON, the files' bytes. */
export function payloadOf(
  files: { name: string; body: Buffer }[],
  options: { schemaVersion?: number; manifestJson?: string } = {},
): Buffer {
  const json = Buffer.from(
    options.manifestJson ??
      JSON.stringify({
        schemaVersion: options.schemaVersion ?? 1,
        files: files.map((file) => ({ name: file.name, bytes: file.body.length })),
      }),
    "utf8",
  );
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length);
  return Buffer.concat([length, json, ...files.map((file) => file.body)]);
}

/** A payload cut as Keydesk cuts it: full chunks, the last (full or not) marked final. */
export function chunksOf(payload: Buffer): { plain: Buffer; tag: number }[] {
  const chunks: { plain: Buffer; tag: number }[] = [];
  for (let at = 0; at < payload.length; at += CHUNK_BYTES) {
    const last = at + CHUNK_BYTES >= payload.length;
    chunks.push({ plain: payload.subarray(at, at + CHUNK_BYTES), tag: last ? TAG_FINAL : TAG_MESSAGE });
  }
  return chunks;
}

/** A format 3 file of these chunks; `header` changes fields of the header written. */
export async function craftStreamBackup(options: {
  passphrase: string;
  chunks: { plain: Buffer; tag: number }[];
  header?: Record<string, unknown>;
}): Promise<{ bytes: Buffer; headLength: number }> {
  const base = newHeader(new Date());
  const kdf = { ...base.kdf, ...CHEAP_KDF };
  // The key is derived with the cheap parameters whatever the header written says.
  const key = await deriveBackupKey(options.passphrase, kdf);
  const header = { ...base, kdf, ...options.header } as StreamHeader;
  const state = Buffer.alloc(stream.crypto_secretstream_xchacha20poly1305_STATEBYTES);
  const streamHeader = Buffer.alloc(stream.crypto_secretstream_xchacha20poly1305_HEADERBYTES);
  stream.crypto_secretstream_xchacha20poly1305_init_push(state, streamHeader, key);
  const head = Buffer.concat([headerBytes(header), streamHeader]);
  const sealed = options.chunks.map((chunk, index) => {
    const out = Buffer.alloc(chunk.plain.length + stream.crypto_secretstream_xchacha20poly1305_ABYTES);
    stream.crypto_secretstream_xchacha20poly1305_push(
      state,
      out,
      chunk.plain,
      index === 0 ? head : null,
      chunk.tag,
    );
    return out;
  });
  return { bytes: Buffer.concat([head, ...sealed]), headLength: head.length };
}

/** Where chunk `index` of a format 3 file begins. */
export const chunkStart = (headLength: number, index: number) => headLength + index * SEALED_CHUNK_BYTES;

/** The first chunk's plaintext of a format 3 file (what an attacker may guess: the manifest). */
export async function firstChunkPlaintext(
  bytes: Buffer,
  passphrase: string,
): Promise<{ plain: Buffer; headLength: number }> {
  const parsed = parseHead(bytes.subarray(0, 12 + 4096 + 24), bytes.length);
  const key = await deriveBackupKey(passphrase, parsed.header.kdf);
  const first = bytes.subarray(parsed.head.length, parsed.head.length + SEALED_CHUNK_BYTES);
  const plain = new PayloadOpener(key, parsed).open(
    first,
    bytes.length <= parsed.head.length + SEALED_CHUNK_BYTES,
    Buffer.alloc(CHUNK_BYTES),
  );
  return { plain: Buffer.from(plain), headLength: parsed.head.length };
}
