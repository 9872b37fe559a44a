import type * as Keytar from "keytar";
import { type CredentialVault, VAULT_SERVICE } from "./credentialVault.ts";

/** The part of keytar the vault uses. */
export type KeytarModule = Pick<typeof Keytar, "getPassword" | "setPassword" | "deletePassword">;

/**
 * Loads keytar (a Node-API module). Throws when the native binary is missing or cannot be loaded
 * (e.g. libsecret is not installed), which openCredentialVault turns into a session-only vault.
 */
export async function loadKeytar(): Promise<KeytarModule> {
  const loaded = (await import("keytar")) as KeytarModule & { default?: KeytarModule };
  return loaded.default ?? loaded;
}

/**
 * Secrets in the OS keychain (macOS Keychain, Windows Credential Manager, the Secret Service on
 * Linux), one entry per account name under the service "Keydesk". Secrets are passed through,
 * never logged.
 */
export class KeytarVault implements CredentialVault {
  readonly kind = "os" as const;
  readonly #keytar: KeytarModule;
  readonly #service: string;

  constructor(keytar: KeytarModule, service: string = VAULT_SERVICE) {
    this.#keytar = keytar;
    this.#service = service;
  }

  /** A vault on the OS keychain; throws when keytar cannot be loaded. */
  static async open(service: string = VAULT_SERVICE): Promise<KeytarVault> {
    return new KeytarVault(await loadKeytar(), service);
  }

  get(account: string): Promise<string | null> {
    return this.#keytar.getPassword(this.#service, account);
  }

  set(account: string, secret: string): Promise<void> {
    return this.#keytar.setPassword(this.#service, account, secret);
  }

  delete(account: string): Promise<boolean> {
    return this.#keytar.deletePassword(this.#service, account);
  }
}
