import { z } from "zod";

/**
 * The backup part of the typed bridge (shared/bridge.ts spreads it into its contract): a backup
 * of the embedded service's data, its restore, and the automatic backups. Passphrases go in, never
 * out: no answer holds a passphrase, a publicApiKey or a password.
 */

/** As the CLI requires for a new backup: the file may travel far. */
export const MIN_BACKUP_PASSPHRASE = 12;
/** Automatic backups kept in `<appDataDir>/backups/`. */
export const AUTO_BACKUPS_KEPT = 7;

const progressId = z
  .string()
  .regex(/^[\w-]{1,64}$/, "must be 1 to 64 letters, digits, - or _")
  .optional();
const newPassphrase = z
  .string()
  .max(1024, "must be at most 1024 characters")
  .refine(
    (text) => [...text].length >= MIN_BACKUP_PASSPHRASE,
    `must be at least ${MIN_BACKUP_PASSPHRASE} characters`,
  );
const passphrase = z.string().min(1, "must not be empty").max(1024, "must be at most 1024 characters");
/** A restore source main handed out (backup.inspect): 128 random bits, hex. */
const sourceId = z.string().regex(/^[0-9a-f]{32}$/, "must be the id backup.inspect answered");
/** An automatic backup's file name, as backup.auto.status lists it. */
export const AUTO_BACKUP_NAME = /^keydesk-auto-\d{8}T\d{6}Z\.kdbackup$/;

export const backupBridgeArgumentSchemas = {
  /** A backup of the Local data: saved where the admin picks (desktop) or one download (browser host). */
  "backup.create": z.strictObject({
    passphrase: newPassphrase,
    /** The remote profiles (name, URL, username) with their passwords from the vault, sealed inside. */
    includeRemotePasswords: z.boolean().default(false),
    progressId,
  }),
  /**
   * Picks a backup to restore and reads its header: the desktop's open dialog (`pick`), a file
   * uploaded to the browser host (`upload`: the id its upload answered), or an automatic backup.
   * Answers null when the dialog was cancelled.
   */
  "backup.inspect": z.strictObject({
    source: z.discriminatedUnion("kind", [
      z.strictObject({ kind: z.literal("pick") }),
      z.strictObject({ kind: z.literal("upload"), uploadId: sourceId }),
      z.strictObject({
        kind: z.literal("automatic"),
        name: z.string().regex(AUTO_BACKUP_NAME, "must be the name of an automatic backup"),
      }),
    ]),
  }),
  /**
   * Replaces the Local data with the backup's (the data there now kept beside it). Without a
   * passphrase, an automatic backup is opened with the one kept in the keychain.
   */
  "backup.restore": z.strictObject({ sourceId, passphrase: passphrase.optional(), progressId }),
  "backup.auto.status": z.strictObject({}).optional(),
  /** Switches automatic backups on (a new passphrase, kept in the keychain) or off. */
  "backup.auto.configure": z.union([
    z.strictObject({ enabled: z.literal(true), passphrase: newPassphrase }),
    z.strictObject({ enabled: z.literal(false) }),
  ]),
} as const;

/** Where a backup went: a file the admin picked, nowhere (cancelled), or a one-time download. */
export type BackupResultDto =
  | { delivered: "file"; path: string; bytes: number; keys: number; accounts: number; remoteProfiles: number }
  | { delivered: "cancelled" }
  | {
      delivered: "download";
      url: string;
      fileName: string;
      bytes: number;
      keys: number;
      accounts: number;
      remoteProfiles: number;
    };

/** A backup about to be restored, and what it would replace. */
export interface RestoreSourceDto {
  sourceId: string;
  fileName: string;
  bytes: number;
  /** From the backup's header (in clear, authenticated). */
  createdAt: string;
  /** An automatic backup: its passphrase is in the keychain. */
  automatic: boolean;
  /** The Local data now, which the restore replaces (kept beside it); null when it cannot be read (damaged). */
  current: { keys: number; accounts: number } | null;
}

export interface RestoreResultDto {
  keys: number;
  accounts: number;
  createdAt: string;
  /** Where the data that was replaced is kept. */
  previous: string | null;
  /** Remote profiles whose passwords the backup held, now back in the vault. */
  remoteProfiles: number;
}

export interface AutoBackupDto {
  name: string;
  createdAt: string;
  bytes: number;
}

export interface AutoBackupStatusDto {
  enabled: boolean;
  /** False without an OS keychain: the passphrase would have nowhere safe to stay. */
  available: boolean;
  unavailableReason?: string;
  /** `<appDataDir>/backups` */
  folder: string;
  /** Newest first. */
  backups: AutoBackupDto[];
  /** The last automatic backup's failure, in words, until one succeeds. */
  lastError?: string;
}

export interface BackupBridgeResults {
  "backup.create": BackupResultDto;
  "backup.inspect": RestoreSourceDto | null;
  "backup.restore": RestoreResultDto;
  "backup.auto.status": AutoBackupStatusDto;
  "backup.auto.configure": AutoBackupStatusDto;
}

/** Progress of a backup or restore of large data: bytes done of the total. */
export interface BackupProgressEvent {
  type: "backup-progress";
  progressId: string;
  phase: "backup" | "restore";
  done: number;
  total: number;
}

/** The Local data was replaced by a restore: every query is stale. */
export interface DataRestoredEvent {
  type: "data-restored";
}
