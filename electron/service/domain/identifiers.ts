import { randomBytes, randomUUID } from "node:crypto";

/** `key` and `accountKey`: 128 random bits as 32 uppercase hex digits. */
export function newKeyId(): string {
  return randomBytes(16).toString("hex").toUpperCase();
}

/**
 * An accountKey has a key id's shape: one generator under the name each caller means.
 * @alias of newKeyId (knip: a duplicate export on purpose)
 */
export const newAccountKey = newKeyId;

/**
 * publicApiKey: 32 hex digits, a dash and a UUID v4 (69 characters, the provider's shape),
 * together 250 bits from the OS CSPRNG.
 */
export function newPublicApiKey(): string {
  return `${randomBytes(16).toString("hex")}-${randomUUID()}`;
}
