import { createCipheriv, randomBytes } from "node:crypto";
import { deriveKey } from "../../electron/service/crypto/secretBox.ts";

/**
 * A value sealed as Keydesk sealed them before libsodium (schema 10 and earlier): AES-256-GCM
 * under the data key's "public-api-key/encryption" key, IV ‖ tag ‖ ciphertext, the context as AAD.
 * `tagBytes` below 16 makes the truncated tags GCM also accepts.
 */
export function sealLegacy(dataKey: Buffer, plaintext: string, context: string, tagBytes = 16): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", deriveKey(dataKey, "public-api-key/encryption"), iv, {
    authTagLength: tagBytes,
  });
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}
