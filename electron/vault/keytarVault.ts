import { KEYCHAIN_BUILD_PACKAGES } from "../../shared/keychainPackages.ts";
import { type CredentialVault, VAULT_SERVICE } from "./credentialVault.ts";

/** The part of keytar the vault uses (typed here: keytar may be absent, see loadKeytar). */
export interface KeytarModule {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

/**
 * keytar is an optional dependency: it builds from source against libsecret where no prebuilt
 * binary can be downloaded, and `npm install` goes on without it when that fails. Its name is
 * kept in a variable so neither the type checker nor the bundler needs it to be installed.
 */
const KEYTAR_MODULE = "keytar";

/**
 * Loads keytar (a Node-API module). Throws when it is not installed or its native binary cannot
 * be loaded (e.g. libsecret is missing), which openCredentialVault turns into a session-only vault.
 */
export async function loadKeytar(): Promise<KeytarModule> {
  let loaded: KeytarModule & { default?: KeytarModule };
  try {
    loaded = await import(KEYTAR_MODULE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND") {
      throw new Error(
        `keytar is not installed (npm install could not build it: on Debian or Ubuntu install ${KEYCHAIN_BUILD_PACKAGES}, ` +
          "then run npm install again)",
      );
    }
    throw error;
  }
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
