import type { BridgeEvent, BridgeResult } from "../../shared/bridge.ts";
import type { CredentialVault } from "../vault/credentialVault.ts";

/**
 * The desktop core: everything the main process does for the renderer, with no `electron`
 * import, so the same core serves Electron IPC and the browser host, and runs in tests.
 */
export interface KeydeskCore {
  /** Validates the raw argument against the bridge schema, runs the handler, never throws. */
  dispatch(method: string, rawArgs: unknown): Promise<BridgeResult<unknown>>;
  /** Events for the renderer (captured PINs, profile and service changes). */
  onEvent(listener: (event: BridgeEvent) => void): () => void;
  /**
   * An export kept for the browser host's one-time download (keys.export without a save port):
   * answered once, then forgotten; undefined when unknown, taken or expired.
   */
  takeDownload(id: string): ExportDownload | undefined;
  /**
   * A backup file uploaded to the browser host for a restore (at most MAX_UPLOAD_BYTES): kept in
   * main under the id answered, which backup.inspect takes. Throws UploadTooLarge past the bound.
   */
  acceptUpload(fileName: string, body: AsyncIterable<Uint8Array>): Promise<string>;
  /** Stops the embedded service and timers. */
  close(): Promise<void>;
}

/** A file made in main for the user: its suggested name, media type and content. */
export interface ExportDownload {
  fileName: string;
  contentType: string;
  body: Buffer;
}

/**
 * Where the desktop app saves an export: asks the user where (a save dialog) and writes the
 * file; null when the user cancelled.
 */
export interface ExportFilePort {
  save(file: ExportDownload): Promise<string | null>;
}

/**
 * The desktop's file dialogs for backups: where to write a new one, which one to restore (a path,
 * or null when the user cancelled). The browser host has none: a backup is one download there,
 * and a restore an upload.
 */
export interface BackupFilePort {
  chooseBackupTarget(suggestedName: string): Promise<string | null>;
  chooseBackupToRestore(): Promise<string | null>;
}

/** The system clipboard as the core needs it: Electron 45's clipboard fits it as it is. */
export interface ClipboardPort {
  writeText(text: string): Promise<void>;
  readText(): Promise<string>;
}

/**
 * The browser host's clipboard: the page's own. Its process cannot reach the clipboard of the
 * user's browser, so a copy answers the value to the page, which writes it (and clears it).
 */
export const PAGE_CLIPBOARD = "page";

/**
 * The desktop's system notifications (Electron's Notification fits it, see desktopNotifier.ts).
 * The browser host has none: there the page shows them.
 */
export interface NotifierPort {
  /** Whether the system can show notifications at all (Electron: Notification.isSupported()). */
  isSupported(): boolean;
  show(notification: { title: string; body: string }): void;
}

export interface CoreOptions {
  /** App data: settings file, embedded service data (KEYDESK_DATA_DIR overrides the app's folder). */
  dataDir: string;
  vault: CredentialVault;
  /**
   * The system clipboard main writes (Electron's; a MemoryClipboard in tests), or PAGE_CLIPBOARD
   * for the browser host. Only the latter ever sends a copied publicApiKey to the renderer.
   */
  clipboard: ClipboardPort | typeof PAGE_CLIPBOARD;
  /**
   * The save dialog of the desktop app. Left out (the browser host, tests): an export is kept
   * in main for one download (KeydeskCore.takeDownload), never answered to the renderer.
   */
  exportFiles?: ExportFilePort;
  /** The desktop's backup dialogs; left out (the browser host, tests): download and upload. */
  backupFiles?: BackupFilePort;
  /** The desktop's system notifications; left out (the browser host): the page shows them. */
  notifier?: NotifierPort;
}
