import { type BrowserWindow, dialog, type OpenDialogOptions, type SaveDialogOptions } from "electron";
import type { BackupFilePort } from "./corePorts.ts";

/**
 * The desktop's dialogs for backups (one of the few files importing `electron`): only the path
 * chosen goes back to the core, which writes or reads the file itself.
 */
export function backupDialogs(parent: () => BrowserWindow | null): BackupFilePort {
  const filters = [{ name: "Keydesk backup", extensions: ["kdbackup"] }];
  const save = (options: SaveDialogOptions) => {
    const window = parent();
    return window ? dialog.showSaveDialog(window, options) : dialog.showSaveDialog(options);
  };
  const open = (options: OpenDialogOptions) => {
    const window = parent();
    return window ? dialog.showOpenDialog(window, options) : dialog.showOpenDialog(options);
  };
  return {
    async chooseBackupTarget(suggestedName) {
      const choice = await save({ defaultPath: suggestedName, filters });
      return choice.canceled || !choice.filePath ? null : choice.filePath;
    },
    async chooseBackupToRestore() {
      const choice = await open({ properties: ["openFile"], filters });
      return choice.canceled ? null : (choice.filePaths[0] ?? null);
    },
  };
}
