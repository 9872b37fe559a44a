import { createDecipheriv, createSecretKey } from "node:crypto";
import { deriveKey, hasSealedFormat, type SecretBox, UnsealError } from "./secretBox.ts";

/**
 * Values sealed by Keydesk before libsodium (schema 10 and earlier): node:crypto's AES-256-GCM,
 * IV (12 bytes) ‖ tag (16 bytes) ‖ ciphertext, the context as additional data, under a key derived
 * from the same data key. They are only ever opened to be sealed again (a database's upgrade, or a
 * restore of an older backup under another data key): nothing else reads this format.
 */

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Opens one sealed value bound to `context`, or throws UnsealError.
 * @internal Exported for tests.
 */
export type SealedValueOpener = (sealed: Uint8Array, context: string) => string;

/** @internal Exported for tests. */
export function legacyGcmOpener(dataKey: Buffer): SealedValueOpener {
  const key = createSecretKey(deriveKey(dataKey, "public-api-key/encryption"));
  return (sealed, context) => {
    // A shorter value would hand GCM a truncated tag (4 to 15 bytes), which it would accept.
    if (sealed.length < IV_BYTES + TAG_BYTES) throw new UnsealError("the sealed value is too short");
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, sealed.subarray(0, IV_BYTES), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(context, "utf8"));
      decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([
        decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString("utf8");
    } catch {
      throw new UnsealError("the sealed value does not open with this data key and context");
    }
  };
}

/**
 * Opens a value in either format, for a database that may hold both while it is upgraded: the
 * current format first (an AEAD opens only what was sealed with its own key and layout, so a
 * legacy value cannot be mistaken for one), then AES-256-GCM. `current` tells which format opened it.
 */
export function anyFormatOpener(
  box: SecretBox,
  dataKey: Buffer,
): (sealed: Uint8Array, context: string) => { plaintext: string; current: boolean } {
  const legacy = legacyGcmOpener(dataKey);
  return (sealed, context) => {
    if (hasSealedFormat(sealed)) {
      try {
        return { plaintext: box.decrypt(sealed, context), current: true };
      } catch {
        // A legacy value whose IV begins with the format byte: tried as one below.
      }
    }
    return { plaintext: legacy(sealed, context), current: false };
  };
}
