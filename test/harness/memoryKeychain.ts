import type { CredentialVault } from "../../electron/vault/credentialVault.ts";

/**
 * Stands in for the OS keychain where a test is about what is kept in it, not about the
 * keychain itself (tested for real, gnome-keyring over D-Bus, in test/integration/vault/).
 */
export function memoryKeychain(): CredentialVault & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    kind: "os",
    entries,
    get: async (account) => entries.get(account) ?? null,
    set: async (account, secret) => {
      entries.set(account, secret);
    },
    delete: async (account) => entries.delete(account),
  };
}
