import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  hkdfSync,
  randomBytes,
} from "node:crypto";
import { gcmBatchOpener, type SealedValue } from "./gcmBatch.ts";

/**
 * Encryption at rest of publicApiKey values. One 32-byte data key, kept outside the
 * database, derives (HKDF-SHA256) an AES-256-GCM key for the values, an HMAC key for the
 * lookup digest, and a check value stored in the database so that a wrong data key is
 * detected at start-up instead of producing garbage.
 */

export const DATA_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretBox {
  /** Ciphertext bound to `context` (the row's key id), so a value cannot be moved between rows. */
  encrypt(plaintext: string, context: string): Buffer;
  decrypt(sealed: Buffer, context: string): string;
  /**
   * Many values at once, as decrypt() would open each (a key list's page): a few native calls
   * for the whole batch instead of one cipher object per value. Throws if any value fails.
   */
  decryptMany(values: readonly SealedValue[]): string[];
  /** Deterministic keyed digest: the index for lookups by value. */
  digest(plaintext: string): Buffer;
  /** Stored once per database; equal only for the same data key. */
  readonly checkValue: string;
  /** HMAC-SHA256 under a key of its own: binds a list's paging cursor to its list (domain/listCursor.ts). */
  cursorTag(message: string): Buffer;
}

function derive(dataKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", dataKey, Buffer.alloc(0), `keydesk/v1/${purpose}`, 32));
}

export function createSecretBox(dataKey: Buffer): SecretBox {
  if (dataKey.length !== DATA_KEY_BYTES) throw new Error(`the data key must be ${DATA_KEY_BYTES} bytes`);
  // KeyObjects, made once: passing raw Buffers makes node:crypto import the key on every call
  // (about three quarters of the cost of each encrypt, decrypt and digest).
  const encryptionKey = createSecretKey(derive(dataKey, "public-api-key/encryption"));
  const digestKey = createSecretKey(derive(dataKey, "public-api-key/digest"));
  const checkValue = derive(dataKey, "key-check").toString("hex");
  const batch = gcmBatchOpener(encryptionKey);
  const cursorKey = createSecretKey(derive(dataKey, "list-cursor"));
  return {
    checkValue,
    encrypt(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", encryptionKey, iv);
      cipher.setAAD(Buffer.from(context, "utf8"));
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]);
    },
    decrypt(sealed, context) {
      const decipher = createDecipheriv("aes-256-gcm", encryptionKey, sealed.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context, "utf8"));
      decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([
        decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString("utf8");
    },
    decryptMany: (values) => batch.open(values),
    digest(plaintext) {
      return createHmac("sha256", digestKey).update(plaintext, "utf8").digest();
    },
    cursorTag(message) {
      return createHmac("sha256", cursorKey).update(message, "utf8").digest();
    },
  };
}
