import { createHmac, createSecretKey, randomBytes } from "node:crypto";

/**
 * Remembers credentials that passed the password KDF, so that only the first request of a
 * client pays for scrypt. Entries are keyed by an HMAC (with a per-process secret) of the
 * username, the password and the stored hash: no password is held in clear, and a password
 * change makes every old entry unreachable at once, in this process and in any other.
 */
export class VerifiedCredentials {
  /** A KeyObject, so each digest does not import the key again (most of an HMAC's cost otherwise). */
  readonly #secret = createSecretKey(randomBytes(32));
  readonly #entries = new Set<string>();
  readonly #capacity: number;

  constructor(capacity = 10_000) {
    this.#capacity = capacity;
  }

  digest(username: string, password: string, passwordHash: string): string {
    return createHmac("sha256", this.#secret)
      .update(username)
      .update("\0")
      .update(password)
      .update("\0")
      .update(passwordHash)
      .digest("base64");
  }

  has(digest: string): boolean {
    if (!this.#entries.has(digest)) return false;
    // Re-insert to keep the set in least-recently-used order.
    this.#entries.delete(digest);
    this.#entries.add(digest);
    return true;
  }

  add(digest: string): void {
    this.#entries.delete(digest);
    this.#entries.add(digest);
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.values().next().value as string;
      this.#entries.delete(oldest);
    }
  }
}
