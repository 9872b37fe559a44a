/**
 * Where Keydesk keeps secrets: the Basic credentials of every connection profile and the
 * local service's data key. Backed by the OS keychain (keytar, service name "Keydesk"), or,
 * where no keychain is available, by memory for this session only, and the user is told.
 */
export interface CredentialVault {
  /** "os": the OS keychain; "session-only": memory, lost when the app quits. */
  readonly kind: "os" | "session-only";
  /** Why the OS keychain is not used, when kind is "session-only". */
  readonly unavailableReason?: string;
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<boolean>;
}

export const VAULT_SERVICE = "Keydesk";

/** Vault account names: one per purpose, so a reader of the keychain sees what each entry is. */
export const vaultAccounts = {
  localDataKey: "local-service/data-key",
  profilePassword: (profileId: string) => `profile/${profileId}/password`,
  /** The passphrase of the automatic backups of the Local data. */
  autoBackupPassphrase: "local-service/backup-passphrase",
} as const;
