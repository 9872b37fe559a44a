import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { BackupResultDto, RestoreSourceDto } from "../../../../shared/backupBridge.ts";
import type { BridgeParsedArgs } from "../../../../shared/bridge.ts";
import { BackupFileError } from "../../../service/backup/backupFormat.ts";
import { vaultAccounts } from "../../../vault/credentialVault.ts";
import type { CoreContext, HandlerTable } from "../context.ts";
import { CoreFailure } from "../coreFailure.ts";
import { DOWNLOAD_PATH_PREFIX } from "../exportDownloads.ts";
import { backupHeaderOf, backupLocalData, currentCounts, restoreLocalData } from "../localBackup.ts";

/**
 * Settings → Back up… and Restore…, and the automatic backups. A backup is written where the
 * admin picks (desktop save dialog) or kept for one download (browser host); a restore reads a
 * file main chose (open dialog), received (upload) or made (automatic). Passphrases come in with
 * the call and go nowhere else: no answer or event holds one, nor any secret of the data.
 */

/** A progress event at most every this fraction of the total (and at the end). */
const PROGRESS_STEP = 0.01;

function progressOf(context: CoreContext, progressId: string | undefined, phase: "backup" | "restore") {
  if (progressId === undefined) return undefined;
  let last = -1;
  return (done: number, total: number) => {
    if (done < total && done - last < total * PROGRESS_STEP) return;
    last = done;
    context.emit({ type: "backup-progress", progressId, phase, done, total });
  };
}

const backupFileName = (now: Date) => `keydesk-backup-${now.toISOString().slice(0, 10)}.kdbackup`;

async function create(
  { passphrase, includeRemotePasswords, progressId }: BridgeParsedArgs<"backup.create">,
  context: CoreContext,
): Promise<BackupResultDto> {
  const now = new Date();
  const fileName = backupFileName(now);
  const onProgress = progressOf(context, progressId, "backup");
  const run = (out: string) =>
    context.exclusive(() =>
      backupLocalData(context, {
        out,
        passphrase,
        includeRemotePasswords,
        now,
        ...(onProgress && { onProgress }),
      }),
    );
  if (context.backupFiles) {
    const path = await context.backupFiles.chooseBackupTarget(fileName);
    if (path === null) return { delivered: "cancelled" };
    return { delivered: "file", path, ...(await run(path)) };
  }
  // The browser host: made beside the data, read into the one-time download, removed.
  const out = join(dirname(context.service.dataDir), `.backup-${randomBytes(8).toString("hex")}`);
  try {
    const result = await run(out);
    const id = context.downloads.add({
      fileName,
      contentType: "application/octet-stream",
      body: readFileSync(out),
    });
    return { delivered: "download", url: `${DOWNLOAD_PATH_PREFIX}${id}`, fileName, ...result };
  } finally {
    rmSync(out, { force: true });
  }
}

function inspect(
  context: CoreContext,
  source: { path: string; fileName: string; automatic: boolean; temporary: boolean },
  id?: string,
): RestoreSourceDto {
  let header: { createdAt: string; bytes: number };
  try {
    header = backupHeaderOf(source.path);
  } catch (error) {
    if (id !== undefined) context.restoreSources.discard(id);
    const reason =
      error instanceof BackupFileError
        ? error.message
        : (error as NodeJS.ErrnoException).code === "ENOENT"
          ? "there is no such file"
          : (error as Error).message;
    throw new CoreFailure("BAD_REQUEST", `${source.fileName} cannot be restored: ${reason}`);
  }
  return {
    sourceId: id ?? context.restoreSources.add(source),
    fileName: source.fileName,
    bytes: header.bytes,
    createdAt: header.createdAt,
    automatic: source.automatic,
    current: currentCounts(context.service.dataDir),
  };
}

async function inspectSource(
  { source }: BridgeParsedArgs<"backup.inspect">,
  context: CoreContext,
): Promise<RestoreSourceDto | null> {
  if (source.kind === "pick") {
    if (!context.backupFiles)
      throw new CoreFailure(
        "NOT_SUPPORTED",
        "this window has no file dialog: upload the backup file instead",
      );
    const path = await context.backupFiles.chooseBackupToRestore();
    if (path === null) return null;
    return inspect(context, { path, fileName: basename(path), automatic: false, temporary: false });
  }
  if (source.kind === "upload") {
    const upload = context.restoreSources.get(source.uploadId);
    if (!upload) throw new CoreFailure("NOT_FOUND", "this upload is gone; choose the file again");
    return inspect(context, upload, source.uploadId);
  }
  const path = context.autoBackups.pathOf(source.name);
  if (!path) throw new CoreFailure("NOT_FOUND", `there is no automatic backup ${source.name}`);
  return inspect(context, { path, fileName: source.name, automatic: true, temporary: false });
}

async function restore(
  { sourceId, passphrase, progressId }: BridgeParsedArgs<"backup.restore">,
  context: CoreContext,
) {
  const source = context.restoreSources.get(sourceId);
  if (!source) throw new CoreFailure("NOT_FOUND", "this backup is no longer chosen; choose it again");
  const secret =
    passphrase ?? (source.automatic ? await context.vault.get(vaultAccounts.autoBackupPassphrase) : null);
  if (secret === null || secret === undefined)
    throw new CoreFailure("BAD_REQUEST", "enter the backup's passphrase", {
      passphrase: ["must not be empty"],
    });
  const onProgress = progressOf(context, progressId, "restore");
  try {
    const result = await context.exclusive(() =>
      restoreLocalData(context, {
        input: source.path,
        passphrase: secret,
        ...(onProgress && { onProgress }),
      }),
    );
    context.restoreSources.discard(sourceId);
    context.emit({ type: "data-restored" });
    return result;
  } catch (error) {
    if (error instanceof BackupFileError)
      throw new CoreFailure("BAD_REQUEST", `${source.fileName} was not restored: ${error.message}`);
    throw error;
  }
}

export const backupHandlers: HandlerTable<
  "backup.create" | "backup.inspect" | "backup.restore" | "backup.auto.status" | "backup.auto.configure"
> = {
  "backup.create": create,
  "backup.inspect": inspectSource,
  "backup.restore": restore,
  "backup.auto.status": async (_args, context) => context.autoBackups.status(),
  "backup.auto.configure": async (change, context) => {
    await context.autoBackups.configure(change);
    return context.autoBackups.status();
  },
};
