import { join } from "node:path";
import type { BridgeEvent } from "../../shared/bridge.ts";
import { KeyServiceClient } from "../client/keyServiceClient.ts";
import { vaultAccounts } from "../vault/credentialVault.ts";
import { AutoBackups } from "./core/autoBackups.ts";
import type { CoreContext } from "./core/context.ts";
import { dispatch } from "./core/dispatch.ts";
import { DEFAULT_SERVICE_PORT, OWNER_USERNAME, startEmbeddedService } from "./core/embeddedService.ts";
import { ExportDownloads } from "./core/exportDownloads.ts";
import { backupLocalData } from "./core/localBackup.ts";
import { LOCAL_PROFILE_ID, ProfileStore } from "./core/profileStore.ts";
import { RestoreSources } from "./core/restoreSources.ts";
import type { CoreOptions, KeydeskCore } from "./corePorts.ts";

/**
 * The desktop core: settings and profiles, the embedded key service, the bridge handlers and
 * the events, with no `electron` import (Electron IPC and the browser host wrap it).
 */

export interface KeydeskCoreOptions extends CoreOptions {
  /**
   * Test-only: clear the clipboard this many ms after a copy instead of after the
   * clipboardClearSeconds setting (at least 5 s), so a test need not wait.
   */
  clipboardClearMsOverride?: number;
  /** The port to try when none is remembered yet (8787; 0 picks a free one). */
  defaultServicePort?: number;
  /** Test-only: the automatic backups' clock and check period (see autoBackups.ts). */
  autoBackupClock?: { now: () => number; checkEveryMs: number };
}

export async function startKeydeskCore(options: KeydeskCoreOptions): Promise<KeydeskCore> {
  const store = new ProfileStore(options.dataDir);
  if (store.corruptBackup) {
    console.warn(`keydesk: the settings file could not be read; it was kept as ${store.corruptBackup}`);
  }
  const service = await startEmbeddedService({
    appDataDir: options.dataDir,
    vault: options.vault,
    port: store.settings.rememberedPort ?? options.defaultServicePort ?? DEFAULT_SERVICE_PORT,
    portRemembered: store.settings.rememberedPort !== null,
    ownerPasswordAccount: vaultAccounts.profilePassword(LOCAL_PROFILE_ID),
  });

  try {
    store.update((settings) => {
      settings.rememberedPort = service.port;
      const local = {
        id: LOCAL_PROFILE_ID,
        name: settings.profiles.find((profile) => profile.id === LOCAL_PROFILE_ID)?.name ?? "Local",
        kind: "local" as const,
        baseUrl: service.url,
        username: OWNER_USERNAME,
      };
      const others = settings.profiles.filter((profile) => profile.id !== LOCAL_PROFILE_ID);
      settings.profiles = [local, ...others];
      if (!settings.profiles.some((profile) => profile.id === settings.activeProfileId)) {
        settings.activeProfileId = LOCAL_PROFILE_ID;
      }
    });
  } catch (error) {
    await service.close();
    throw error;
  }

  const listeners = new Set<(event: BridgeEvent) => void>();
  const emit = (event: BridgeEvent) => {
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch {
        // One failing listener does not stop the others.
      }
    }
  };
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => {});
    return run;
  };
  const autoBackups = new AutoBackups({
    folder: join(options.dataDir, "backups"),
    vault: options.vault,
    store,
    backup: async (out, passphrase) => {
      await exclusive(() =>
        backupLocalData(
          { store, vault: options.vault, service },
          { out, passphrase, includeRemotePasswords: false },
        ),
      );
    },
    ...(options.autoBackupClock && {
      now: options.autoBackupClock.now,
      checkEveryMs: options.autoBackupClock.checkEveryMs,
    }),
  });
  const context: CoreContext = {
    store,
    vault: options.vault,
    service,
    clipboard: options.clipboard,
    exportFiles: options.exportFiles,
    downloads: new ExportDownloads(),
    backupFiles: options.backupFiles,
    notifier: options.notifier,
    restoreSources: new RestoreSources(options.dataDir),
    autoBackups,
    exclusive,
    clipboardClearMsOverride: options.clipboardClearMsOverride,
    timers: new Set(),
    emit,
  };

  // The PIN inbox of the Local profile, live: every captured PIN becomes a "pin" event, every
  // verification that changes a PIN a "pin-state" event.
  const ownerPassword = await options.vault.get(vaultAccounts.profilePassword(LOCAL_PROFILE_ID));
  const stopPins = ownerPassword
    ? new KeyServiceClient({
        baseUrl: service.url,
        username: OWNER_USERNAME,
        password: ownerPassword,
        clientKind: "desktop",
      }).streamPins((event) =>
        emit(
          event.type === "captured"
            ? { type: "pin", pin: event.pin }
            : { type: "pin-state", state: event.state },
        ),
      )
    : () => {};

  autoBackups.start();

  let closing: Promise<void> | undefined;
  return {
    dispatch: (method, rawArgs) => dispatch(context, method, rawArgs),
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    takeDownload: (id) => context.downloads.take(id),
    acceptUpload: (fileName, body) => context.restoreSources.receive(fileName, body),
    close() {
      closing ??= (async () => {
        stopPins();
        for (const timer of context.timers) clearTimeout(timer);
        context.timers.clear();
        listeners.clear();
        context.downloads.clear();
        await autoBackups.stop();
        await exclusive(async () => {});
        context.restoreSources.clear();
        await service.close();
      })();
      return closing;
    },
  };
}
