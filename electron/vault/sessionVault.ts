import type { CredentialVault } from "./credentialVault.ts";

/**
 * Secrets in memory, for this session only: used when the OS keychain cannot be reached.
 * `unavailableReason` says why, in words the user can act on; it never contains a secret.
 */
export class SessionVault implements CredentialVault {
  readonly kind = "session-only" as const;
  readonly unavailableReason: string;
  readonly #secrets = new Map<string, string>();

  constructor(unavailableReason: string) {
    this.unavailableReason = unavailableReason;
  }

  async get(account: string): Promise<string | null> {
    return this.#secrets.get(account) ?? null;
  }

  async set(account: string, secret: string): Promise<void> {
    this.#secrets.set(account, secret);
  }

  async delete(account: string): Promise<boolean> {
    return this.#secrets.delete(account);
  }
}
