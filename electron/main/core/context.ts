import type {
  BridgeEvent,
  BridgeMethod,
  BridgeParsedArgs,
  BridgeResults,
  ProfileDto,
} from "../../../shared/bridge.ts";
import { KeyServiceClient } from "../../client/keyServiceClient.ts";
import { type CredentialVault, vaultAccounts } from "../../vault/credentialVault.ts";
import type {
  BackupFilePort,
  ClipboardPort,
  ExportFilePort,
  NotifierPort,
  PAGE_CLIPBOARD,
} from "../corePorts.ts";
import type { AutoBackups } from "./autoBackups.ts";
import { CoreFailure } from "./coreFailure.ts";
import type { EmbeddedService } from "./embeddedService.ts";
import type { ExportDownloads } from "./exportDownloads.ts";
import { LOCAL_PROFILE_ID, type ProfileStore, type StoredProfile } from "./profileStore.ts";
import type { RestoreSources } from "./restoreSources.ts";

/** What every handler may use: settings, vault, embedded service, clipboard, events. */
export interface CoreContext {
  readonly store: ProfileStore;
  readonly vault: CredentialVault;
  readonly service: EmbeddedService;
  /** The system clipboard, or the page's (browser host): see CoreOptions.clipboard. */
  readonly clipboard: ClipboardPort | typeof PAGE_CLIPBOARD;
  /** The desktop's save dialog; undefined: exports wait in `downloads` (browser host). */
  readonly exportFiles: ExportFilePort | undefined;
  readonly downloads: ExportDownloads;
  /** The desktop's backup dialogs; undefined: backups download, restores upload (browser host). */
  readonly backupFiles: BackupFilePort | undefined;
  /** The desktop's system notifications; undefined: the page shows them (browser host). */
  readonly notifier: NotifierPort | undefined;
  /** Backups chosen or uploaded for a restore, by id. */
  readonly restoreSources: RestoreSources;
  readonly autoBackups: AutoBackups;
  /** Runs backups and restores one at a time (a restore must not swap the data under a backup). */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  /** Test-only: clears the clipboard after this many ms instead of clipboardClearSeconds. */
  readonly clipboardClearMsOverride: number | undefined;
  /** Pending clipboard clears (cleared on close). */
  readonly timers: Set<NodeJS.Timeout>;
  emit(event: BridgeEvent): void;
}

export type Handler<M extends BridgeMethod> = (
  args: BridgeParsedArgs<M>,
  context: CoreContext,
) => Promise<BridgeResults[M]>;

export type HandlerTable<M extends BridgeMethod> = { [K in M]: Handler<K> };

export function profileOrFail(context: CoreContext, id: string): StoredProfile {
  const profile = context.store.profile(id);
  if (!profile) throw new CoreFailure("NOT_FOUND", `there is no connection profile ${id}`);
  return profile;
}

export function activeProfile(context: CoreContext): StoredProfile {
  const id = context.store.settings.activeProfileId ?? LOCAL_PROFILE_ID;
  return context.store.profile(id) ?? profileOrFail(context, LOCAL_PROFILE_ID);
}

export function toProfileDto(context: CoreContext, profile: StoredProfile): ProfileDto {
  return { ...profile, active: profile.id === activeProfile(context).id };
}

/** The API client of a profile, with its password from the vault. */
export async function clientOf(context: CoreContext, profile: StoredProfile): Promise<KeyServiceClient> {
  const password = await context.vault.get(vaultAccounts.profilePassword(profile.id));
  if (password === null) {
    throw new CoreFailure(
      context.vault.kind === "session-only" ? "NO_KEYCHAIN" : "UNAUTHORIZED",
      `the password of the profile "${profile.name}" is not stored${
        context.vault.kind === "session-only" ? " (no keychain: passwords are kept for one session only)" : ""
      }; edit the profile and enter it again`,
    );
  }
  return new KeyServiceClient({
    baseUrl: profile.baseUrl,
    username: profile.username,
    password,
    clientKind: "desktop",
  });
}

export async function activeClient(context: CoreContext): Promise<KeyServiceClient> {
  return clientOf(context, activeProfile(context));
}
