import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  AUTO_BACKUP_NAME,
  AUTO_BACKUPS_KEPT,
  type AutoBackupDto,
  type AutoBackupStatusDto,
} from "../../../shared/backupBridge.ts";
import { type CredentialVault, vaultAccounts } from "../../vault/credentialVault.ts";
import { CoreFailure } from "./coreFailure.ts";
import type { ProfileStore } from "./profileStore.ts";

/**
 * Automatic backups of the Local data: while the app runs, one a day, in `<appDataDir>/backups/`,
 * the newest AUTO_BACKUPS_KEPT kept. The passphrase stays in the OS keychain (never in the
 * settings file), so without a keychain they cannot be switched on.
 *
 * The timer: a check at start and then every `checkEveryMs` (an hour), which makes a backup when
 * the newest is a day old or more (or there is none). Checking often and comparing with the files'
 * own times, rather than sleeping a day, survives a laptop's sleep and a restart of the app, and
 * the clock and the period are injected so that a test drives `check()` itself.
 */

/** @internal Exported for tests. */
export const DAY_MS = 24 * 60 * 60 * 1000;
const AUTO_BACKUP_CHECK_MS = 60 * 60 * 1000;

export interface AutoBackupsOptions {
  /** `<appDataDir>/backups` */
  folder: string;
  vault: CredentialVault;
  store: ProfileStore;
  /** Makes one backup into `out` (serialized with restores by the caller). */
  backup(out: string, passphrase: string): Promise<void>;
  now?: () => number;
  checkEveryMs?: number;
}

/**
 * keydesk-auto-20261125T221500Z.kdbackup: sorts by time, and says when.
 * @internal Exported for tests.
 */
export function autoBackupName(time: number): string {
  const stamp = new Date(time)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return `keydesk-auto-${stamp}.kdbackup`;
}

function timeOfName(name: string): number {
  const m = /^keydesk-auto-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z/.exec(name);
  if (!m) return Number.NaN;
  return Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
}

export class AutoBackups {
  readonly folder: string;
  readonly #options: AutoBackupsOptions;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #lastError: string | undefined;

  constructor(options: AutoBackupsOptions) {
    this.#options = options;
    this.folder = options.folder;
    this.#now = options.now ?? Date.now;
  }

  get enabled(): boolean {
    return this.#options.store.settings.autoBackup === true && this.#options.vault.kind === "os";
  }

  /** Checks now (without waiting) and then every checkEveryMs. */
  start(): void {
    this.#timer = setInterval(() => void this.check(), this.#options.checkEveryMs ?? AUTO_BACKUP_CHECK_MS);
    this.#timer.unref();
    void this.check();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }

  /** The backups there are, newest first. */
  list(): AutoBackupDto[] {
    let names: string[];
    try {
      names = readdirSync(this.folder);
    } catch {
      return [];
    }
    return names
      .filter((name) => AUTO_BACKUP_NAME.test(name))
      .sort()
      .reverse()
      .map((name) => ({
        name,
        createdAt: new Date(timeOfName(name)).toISOString(),
        bytes: statSync(join(this.folder, name)).size,
      }));
  }

  status(): AutoBackupStatusDto {
    const available = this.#options.vault.kind === "os";
    return {
      enabled: this.enabled,
      available,
      ...(!available && {
        unavailableReason: `Automatic backups keep their passphrase in the OS keychain, which is not available: ${
          this.#options.vault.unavailableReason ?? "unknown reason"
        }`,
      }),
      folder: this.folder,
      backups: this.list(),
      ...(this.#lastError !== undefined && { lastError: this.#lastError }),
    };
  }

  /** Makes a backup when they are on and the newest is a day old (or none is there). */
  check(): Promise<void> {
    this.#running ??= this.#check().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #check(): Promise<void> {
    if (!this.enabled) return;
    const newest = this.list()[0];
    if (newest && this.#now() - Date.parse(newest.createdAt) < DAY_MS) return;
    try {
      const passphrase = await this.#options.vault.get(vaultAccounts.autoBackupPassphrase);
      if (passphrase === null)
        throw new Error("its passphrase is no longer in the OS keychain; switch automatic backups on again");
      mkdirSync(this.folder, { recursive: true, mode: 0o700 });
      await this.#options.backup(join(this.folder, autoBackupName(this.#now())), passphrase);
      this.#lastError = undefined;
      this.#prune();
    } catch (error) {
      this.#lastError = `The automatic backup failed: ${(error as Error).message}`;
    }
  }

  #prune(): void {
    for (const old of this.list().slice(AUTO_BACKUPS_KEPT))
      rmSync(join(this.folder, old.name), { force: true });
  }

  async configure(change: { enabled: true; passphrase: string } | { enabled: false }): Promise<void> {
    if (change.enabled) {
      if (this.#options.vault.kind !== "os")
        throw new CoreFailure("NO_KEYCHAIN", this.status().unavailableReason ?? "no OS keychain");
      await this.#options.vault.set(vaultAccounts.autoBackupPassphrase, change.passphrase);
      this.#options.store.update((settings) => {
        settings.autoBackup = true;
      });
      this.#lastError = undefined;
      await this.check();
    } else {
      await this.#running;
      this.#options.store.update((settings) => {
        settings.autoBackup = false;
      });
      await this.#options.vault.delete(vaultAccounts.autoBackupPassphrase);
    }
  }

  /** The path of an automatic backup, when the name is one of them. */
  pathOf(name: string): string | undefined {
    return this.list().some((backup) => backup.name === name) ? join(this.folder, name) : undefined;
  }
}
