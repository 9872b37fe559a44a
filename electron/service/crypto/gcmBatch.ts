import { createCipheriv, type KeyObject } from "node:crypto";

/**
 * Opens many short AES-256-GCM values (the key list's publicApiKeys) in one native call instead of
 * one per value. node:crypto has no one-shot AEAD call: every createDecipheriv builds a stream
 * object, about 6 µs for a value of 70 bytes, two thirds of what a listed key costs. GCM is CTR
 * encryption plus a GHASH tag, so a batch needs AES only for its counter blocks: all of them go
 * through one AES-ECB call (AES-NI), and the tags are checked here, in GHASH over a table of
 * multiples of the hash key, before any plaintext is handed out. NIST SP 800-38D, 96-bit IVs.
 *
 * Sealing stays node:crypto's own GCM (secretBox.ts); this only opens what it sealed, and its
 * tests check it against node:crypto both ways, tampered bytes included. The table lookups depend
 * on the data (like OpenSSL's GHASH without CLMUL): a timing attacker would have to share the
 * machine's caches with the service's key list worker.
 */

const BLOCK = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** GHASH's reduction: x^128 = x^7 + x^2 + x + 1, bits 11100001 at the top of GCM's bit order. */
const R = 0xe1000000;

/** The message node:crypto gives for a value that does not authenticate. */
export const UNAUTHENTIC = "Unsupported state or unable to authenticate data";

/**
 * The products H·(b·x^(8i)) for every byte position i and byte value b, as 4 big-endian 32-bit
 * words each: multiplying a block by H is then 16 lookups and XORs, no shifts or reductions.
 */
function hashKeyTable(h: Buffer): Int32Array {
  const table = new Int32Array(16 * 256 * 4);
  // Row i, entry 0x80 >> j is H·x^(8i+j): in GCM's reflected bit order, multiplying by x shifts right.
  let v0 = h.readInt32BE(0);
  let v1 = h.readInt32BE(4);
  let v2 = h.readInt32BE(8);
  let v3 = h.readInt32BE(12);
  for (let i = 0; i < 16; i++) {
    for (let bit = 0x80; bit > 0; bit >>>= 1) {
      const at = (i * 256 + bit) * 4;
      table[at] = v0;
      table[at + 1] = v1;
      table[at + 2] = v2;
      table[at + 3] = v3;
      const carry = v3 & 1;
      v3 = (v3 >>> 1) | (v2 << 31);
      v2 = (v2 >>> 1) | (v1 << 31);
      v1 = (v1 >>> 1) | (v0 << 31);
      v0 = (v0 >>> 1) ^ (carry ? R : 0);
    }
    // Any other byte is the sum (XOR) of its highest bit's entry and the rest's, both made already.
    for (let b = 3; b < 256; b++) {
      const high = 1 << (31 - Math.clz32(b));
      if (high === b) continue;
      const at = (i * 256 + b) * 4;
      const one = (i * 256 + high) * 4;
      const rest = (i * 256 + (b ^ high)) * 4;
      for (let w = 0; w < 4; w++) table[at + w] = (table[one + w] as number) ^ (table[rest + w] as number);
    }
  }
  return table;
}

/** Byte `i` of a block that ends at `end`: zero past it (GCM pads each segment with zeros). */
const byteAt = (d: Uint8Array, i: number, end: number): number => (i < end ? (d[i] as number) : 0);

/** Four big-endian bytes at `o`, zero-padded past `end`. */
function wordAt(d: Uint8Array, o: number, end: number): number {
  if (o + 4 <= end) {
    return (
      ((d[o] as number) << 24) |
      ((d[o + 1] as number) << 16) |
      ((d[o + 2] as number) << 8) |
      (d[o + 3] as number)
    );
  }
  return (
    (byteAt(d, o, end) << 24) |
    (byteAt(d, o + 1, end) << 16) |
    (byteAt(d, o + 2, end) << 8) |
    byteAt(d, o + 3, end)
  );
}

/**
 * GHASH of one value (its AAD, its ciphertext, the block of their lengths in bits) into `out`,
 * the running state kept in locals: y = (y ⊕ block)·H for each zero-padded block.
 */
function ghashInto(
  t: Int32Array,
  aad: Uint8Array,
  aadBytes: number,
  text: Uint8Array,
  textStart: number,
  textEnd: number,
  out: Int32Array,
): void {
  let y0 = 0;
  let y1 = 0;
  let y2 = 0;
  let y3 = 0;
  const aadBlocks = Math.ceil(aadBytes / BLOCK);
  const textBlocks = Math.ceil((textEnd - textStart) / BLOCK);
  const blocks = aadBlocks + textBlocks + 1;
  for (let n = 0; n < blocks; n++) {
    if (n < aadBlocks) {
      const o = n * BLOCK;
      y0 ^= wordAt(aad, o, aadBytes);
      y1 ^= wordAt(aad, o + 4, aadBytes);
      y2 ^= wordAt(aad, o + 8, aadBytes);
      y3 ^= wordAt(aad, o + 12, aadBytes);
    } else if (n < aadBlocks + textBlocks) {
      const o = textStart + (n - aadBlocks) * BLOCK;
      y0 ^= wordAt(text, o, textEnd);
      y1 ^= wordAt(text, o + 4, textEnd);
      y2 ^= wordAt(text, o + 8, textEnd);
      y3 ^= wordAt(text, o + 12, textEnd);
    } else {
      // Lengths in bits, 64 bits each: values this short need only the low words.
      y1 ^= aadBytes * 8;
      y3 ^= (textEnd - textStart) * 8;
    }
    let z0 = 0;
    let z1 = 0;
    let z2 = 0;
    let z3 = 0;
    // Byte i of the block selects row i of the table: 4 bytes of each word in turn.
    for (let w = 0; w < 4; w++) {
      const word = w === 0 ? y0 : w === 1 ? y1 : w === 2 ? y2 : y3;
      for (let k = 0; k < 4; k++) {
        const at = ((((w << 2) | k) << 8) | ((word >>> (24 - (k << 3))) & 0xff)) << 2;
        z0 ^= t[at] as number;
        z1 ^= t[at + 1] as number;
        z2 ^= t[at + 2] as number;
        z3 ^= t[at + 3] as number;
      }
    }
    y0 = z0;
    y1 = z1;
    y2 = z2;
    y3 = z3;
  }
  out[0] = y0;
  out[1] = y1;
  out[2] = y2;
  out[3] = y3;
}

/** One sealed value: IV (12 bytes) ‖ tag (16) ‖ ciphertext, and the context it is bound to (its AAD). */
export interface SealedValue {
  sealed: Uint8Array;
  context: string;
}

/**
 * Wipes a batch's keystream, which holds the batch's plaintexts once opened, and frees it now
 * rather than at the thread's next full collection: a list of a million keys makes a few hundred
 * MB of them, which a worker thread's collector let pile up (it counts such memory lazily).
 */
function release(stream: Buffer): void {
  stream.fill(0);
  const memory = stream.buffer as ArrayBuffer;
  if (stream.byteOffset === 0 && memory.byteLength === stream.length && !memory.detached) memory.transfer(0);
}

export interface GcmBatchOpener {
  /** The plaintexts (UTF-8) in order; throws UNAUTHENTIC if any value fails its tag, opening none. */
  open(values: readonly SealedValue[]): string[];
}

export function gcmBatchOpener(key: KeyObject): GcmBatchOpener {
  const ecb = () => createCipheriv("aes-256-ecb", key, null).setAutoPadding(false);
  // Made on the first batch: a service that lists nothing (most CLI commands) never pays for it.
  let table: Int32Array | undefined;
  const hash = new Int32Array(4);
  let aad = Buffer.alloc(64);
  /** The counter blocks of a batch, kept for the next: a list opens a batch per step. */
  let counters = Buffer.alloc(0);
  return {
    open(values) {
      if (values.length === 0) return [];
      table ??= hashKeyTable(ecb().update(Buffer.alloc(BLOCK)));
      const t = table;
      // Counter blocks: J0 = IV ‖ 1 masks the tag, IV ‖ 2, 3, ... encrypt the text. `starts` is
      // where each value's J0 sits; its text's keystream follows it.
      const starts: number[] = new Array(values.length + 1);
      starts[0] = 0;
      values.forEach(({ sealed }, index) => {
        if (sealed.length < IV_BYTES + TAG_BYTES) throw new Error(UNAUTHENTIC);
        starts[index + 1] =
          (starts[index] as number) + BLOCK * (1 + Math.ceil((sealed.length - IV_BYTES - TAG_BYTES) / BLOCK));
      });
      const bytes = starts[values.length] as number;
      if (counters.length < bytes) counters = Buffer.allocUnsafe(bytes);
      values.forEach(({ sealed }, index) => {
        for (
          let at = starts[index] as number, counter = 1;
          at < (starts[index + 1] as number);
          at += BLOCK, counter++
        ) {
          for (let i = 0; i < IV_BYTES; i++) counters[at + i] = sealed[i] as number;
          counters.writeUInt32BE(counter, at + IV_BYTES);
        }
      });
      const stream = ecb().update(counters.subarray(0, bytes));

      // Every tag first: a batch with one forged value hands out nothing.
      values.forEach(({ sealed, context }, index) => {
        if (aad.length < context.length * 3) aad = Buffer.alloc(context.length * 3);
        const aadBytes = aad.write(context, 0, "utf8");
        ghashInto(t, aad, aadBytes, sealed, IV_BYTES + TAG_BYTES, sealed.length, hash);
        const mask = starts[index] as number;
        let difference = 0;
        for (let w = 0; w < 4; w++) {
          const given = wordAt(sealed, IV_BYTES + w * 4, IV_BYTES + TAG_BYTES);
          difference |= (hash[w] as number) ^ stream.readInt32BE(mask + w * 4) ^ given;
        }
        if (difference !== 0) throw new Error(UNAUTHENTIC);
      });

      const texts = values.map(({ sealed }, index) => {
        const from = (starts[index] as number) + BLOCK;
        const textBytes = sealed.length - IV_BYTES - TAG_BYTES;
        for (let i = 0; i < textBytes; i++) {
          stream[from + i] = (stream[from + i] as number) ^ (sealed[IV_BYTES + TAG_BYTES + i] as number);
        }
        return stream.toString("utf8", from, from + textBytes);
      });
      release(stream);
      return texts;
    },
  };
}
