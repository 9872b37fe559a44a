import { closeSync, copyFileSync, openSync, readSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import type { RestoreResultDto } from "../../../shared/backupBridge.ts";
import {
  backupDataDir,
  type ProgressListener,
  REMOTE_PROFILES_FILE,
  restoreDataDir,
} from "../../service/backup/backupDataDir.ts";
import { BackupFileError, HEAD_READ_BYTES, parseHead } from "../../service/backup/backupFormat.ts";
import { fileExists } from "../../service/crypto/privateFile.ts";
import { DATABASE_FILE } from "../../service/dataDir.ts";
import { countKeysAndAccounts, openDatabaseFile } from "../../service/store/sqliteFile.ts";
import { type CredentialVault, vaultAccounts } from "../../vault/credentialVault.ts";
import { type EmbeddedService, OWNER_PASSWORD_FILE } from "./embeddedService.ts";
import { LOCAL_PROFILE_ID, type ProfileStore } from "./profileStore.ts";

/**
 * Backup and restore of the embedded service's data, in main: the service's own format
 * (electron/service/backup), taken while the service runs, with the data key from the keychain
 * when it holds it; optionally with the remote profiles and their passwords from the vault. A
 * restore is deciphered and checked beside the data first, while the service still runs: only a
 * whole, verified copy stops the service for the moment of two renames.
 */

export interface LocalBackupDeps {
  readonly store: ProfileStore;
  readonly vault: CredentialVault;
  readonly service: EmbeddedService;
}

/** A remote profile as a backup carries it (inside the sealed payload only). */
const remoteProfileSchema = z.strictObject({
  id: z
    .string()
    .min(1)
    .max(100)
    .refine((id) => id !== LOCAL_PROFILE_ID),
  name: z.string().min(1).max(100),
  baseUrl: z.url({ protocol: /^https?$/ }).max(2000),
  username: z.string().min(1).max(200),
  password: z.string().min(1).max(1024),
});
const remoteProfilesSchema = z.strictObject({
  version: z.literal(1),
  profiles: z.array(remoteProfileSchema).max(1000),
});
type RemoteProfileSecret = z.infer<typeof remoteProfileSchema>;

/** The remote profiles whose password the vault holds (the others have nothing to carry). */
async function remoteProfileSecrets(deps: LocalBackupDeps): Promise<RemoteProfileSecret[]> {
  const secrets: RemoteProfileSecret[] = [];
  for (const profile of deps.store.profiles()) {
    if (profile.kind !== "remote") continue;
    const password = await deps.vault.get(vaultAccounts.profilePassword(profile.id));
    if (password === null) continue;
    const { id, name, baseUrl, username } = profile;
    secrets.push({ id, name, baseUrl, username, password });
  }
  return secrets;
}

export interface LocalBackupResult {
  bytes: number;
  keys: number;
  accounts: number;
  remoteProfiles: number;
}

export async function backupLocalData(
  deps: LocalBackupDeps,
  options: {
    out: string;
    passphrase: string;
    includeRemotePasswords: boolean;
    onProgress?: ProgressListener;
    now?: Date;
  },
): Promise<LocalBackupResult> {
  const profiles = options.includeRemotePasswords ? await remoteProfileSecrets(deps) : [];
  const result = await backupDataDir({
    dataDir: deps.service.dataDir,
    out: options.out,
    passphrase: options.passphrase,
    dataKeyBase64: deps.service.dataKeyBase64,
    ...(options.now && { now: options.now }),
    ...(options.onProgress && { onProgress: options.onProgress }),
    ...(options.includeRemotePasswords && {
      extraFiles: [
        {
          name: REMOTE_PROFILES_FILE,
          body: Buffer.from(JSON.stringify({ version: 1, profiles }), "utf8"),
        },
      ],
    }),
  });
  return {
    bytes: result.bytes,
    keys: result.keys,
    accounts: result.accounts,
    remoteProfiles: profiles.length,
  };
}

/**
 * Keys and accounts of the Local data now (a read-only count beside the running service); null
 * when they cannot be read, as when the database is damaged: the very case a restore is for.
 */
export function currentCounts(dataDir: string): { keys: number; accounts: number } | null {
  const file = join(dataDir, DATABASE_FILE);
  if (!fileExists(file)) return { keys: 0, accounts: 0 };
  try {
    const db = openDatabaseFile(file, { readonly: true, busyTimeoutMs: 2000 });
    try {
      return countKeysAndAccounts(db);
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}

/** A backup file's creation time and size, from its clear (authenticated) header. */
export function backupHeaderOf(path: string): { createdAt: string; bytes: number } {
  const bytes = statSync(path).size;
  const fd = openSync(path, "r");
  try {
    const first = Buffer.alloc(Math.min(bytes, HEAD_READ_BYTES));
    readSync(fd, first, 0, first.length, 0);
    return { createdAt: parseHead(first, bytes).header.createdAt, bytes };
  } finally {
    closeSync(fd);
  }
}

const stampOf = (now: Date) => now.toISOString().replace(/[:.]/g, "-");

/**
 * Replaces the Local data with the backup's. The backup is deciphered, verified and (with a
 * keychain) re-sealed under the keychain's data key into a folder beside the data while the
 * service runs; a wrong passphrase or a damaged file fails there, with nothing changed. Then the
 * service stops, the data folder becomes `service.before-restore-<time>` (kept), the restored
 * one takes its place, and the service starts again on its port. The remote profiles the backup
 * carries come back, with their passwords, into the settings and the vault.
 */
export async function restoreLocalData(
  deps: LocalBackupDeps,
  options: { input: string; passphrase: string; onProgress?: ProgressListener; now?: Date },
): Promise<RestoreResultDto> {
  const now = options.now ?? new Date();
  const dataDir = deps.service.dataDir;
  const staged = join(dirname(dataDir), `.${basename(dataDir)}.restored-${stampOf(now)}`);
  try {
    const restored = await restoreDataDir({
      input: options.input,
      dataDir: staged,
      passphrase: options.passphrase,
      // With a keychain, the data key stays the one in it: everything is sealed again under it,
      // as the CLI does with KEY_SERVICE_DATA_KEY. Without one, the backup's data.key comes along.
      dataKeyBase64: deps.service.dataKeyBase64,
      now,
      ...(options.onProgress && { onProgress: options.onProgress }),
    });
    const profiles = remoteProfilesOf(restored.extras.get(REMOTE_PROFILES_FILE));
    const previous = `${dataDir}.before-restore-${stampOf(now)}`;
    await deps.service.whileStopped(
      async () => {
        renameSync(dataDir, previous);
        try {
          renameSync(staged, dataDir);
        } catch (error) {
          renameSync(previous, dataDir);
          throw error;
        }
        // Without a keychain the owner's password file stays this machine's (apps may use it).
        const ownerFile = join(previous, OWNER_PASSWORD_FILE);
        if (fileExists(ownerFile)) copyFileSync(ownerFile, join(dataDir, OWNER_PASSWORD_FILE));
      },
      async () => {
        // The service did not start on the restored data: it goes back to staging (removed below)
        // and the previous data takes its place again, so a failed restore changes nothing.
        renameSync(dataDir, staged);
        renameSync(previous, dataDir);
      },
    );
    for (const { password, ...profile } of profiles) {
      deps.store.upsertProfile({ ...profile, kind: "remote" });
      await deps.vault.set(vaultAccounts.profilePassword(profile.id), password);
    }
    return {
      keys: restored.keys,
      accounts: restored.accounts,
      createdAt: restored.createdAt,
      previous,
      remoteProfiles: profiles.length,
    };
  } finally {
    rmSync(staged, { recursive: true, force: true });
  }
}

function remoteProfilesOf(bytes: Buffer | undefined): RemoteProfileSecret[] {
  if (bytes === undefined) return [];
  let parsed: ReturnType<typeof remoteProfilesSchema.safeParse>;
  try {
    parsed = remoteProfilesSchema.safeParse(JSON.parse(bytes.toString("utf8")));
  } catch {
    parsed = { success: false } as typeof parsed;
  }
  if (!parsed.success) throw new BackupFileError("its remote profiles cannot be read; nothing was changed");
  return parsed.data.profiles;
}
