// React Query hooks of backup and restore: one per bridge operation, plus the progress events.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import type { BridgeArgs } from "../../../../shared/bridge.ts";
import { getBridge, hasFileDialogs, uploadBackupFile } from "../../bridge.ts";
import { BridgeFailure, callBridge } from "../../bridgeHooks.ts";

const backupQueryKeys = {
  autoStatus: () => ["backup.auto.status"] as const,
};

/** Makes a backup in main (saved where the admin picks, or one download in the browser host). */
export function useCreateBackup() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (args: BridgeArgs<"backup.create">) => callBridge("backup.create", args),
    onSettled: () => queryClient.invalidateQueries({ queryKey: backupQueryKeys.autoStatus() }),
  });
}

/**
 * Chooses the backup to restore and reads its header: the desktop's open dialog, or (browser
 * host) the file the page picked, uploaded first; or an automatic backup by name.
 */
export function useInspectBackup() {
  return useMutation({
    mutationFn: async (source: { file: File } | { automatic: string } | "pick") => {
      if (source === "pick") return callBridge("backup.inspect", { source: { kind: "pick" } });
      if ("automatic" in source)
        return callBridge("backup.inspect", { source: { kind: "automatic", name: source.automatic } });
      const upload = await uploadBackupFile(source.file);
      if (!upload.ok) throw new BridgeFailure(upload.error);
      return callBridge("backup.inspect", { source: { kind: "upload", uploadId: upload.value.uploadId } });
    },
  });
}

/** Replaces the Local data with the backup's; every query refetches after (the data-restored event). */
export function useRestoreBackup() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (args: BridgeArgs<"backup.restore">) => callBridge("backup.restore", args),
    onSuccess: () => queryClient.invalidateQueries(),
  });
}

export function useAutoBackupStatus() {
  return useQuery({
    queryKey: backupQueryKeys.autoStatus(),
    queryFn: () => callBridge("backup.auto.status", undefined),
  });
}

export function useConfigureAutoBackups() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (args: BridgeArgs<"backup.auto.configure">) => callBridge("backup.auto.configure", args),
    onSuccess: (status) => queryClient.setQueryData(backupQueryKeys.autoStatus(), status),
  });
}

/** A progress id for one dialog, and the latest bytes done of the total its events report. */
export function useBackupProgress() {
  const progressId = useId().replace(/[^\w-]/g, "");
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  useEffect(
    () =>
      getBridge().onEvent((event) => {
        if (event.type === "backup-progress" && event.progressId === progressId) {
          setProgress({ done: event.done, total: event.total });
        }
      }),
    [progressId],
  );
  return { progressId, progress, reset: () => setProgress(null) };
}

export { hasFileDialogs };
