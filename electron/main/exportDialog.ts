import { writeFile } from "node:fs/promises";
import { type BrowserWindow, dialog } from "electron";
import type { ExportFilePort } from "./corePorts.ts";

/**
 * The desktop's save dialog for exports (one of the few files importing `electron`). The file is
 * written readable by the user only: it may hold publicApiKeys.
 */
export function saveDialogExports(parent: () => BrowserWindow | null): ExportFilePort {
  return {
    async save(file) {
      const window = parent();
      const options = {
        defaultPath: file.fileName,
        filters: [{ name: file.fileName, extensions: [file.fileName.split(".").pop() ?? "*"] }],
      };
      const choice = window
        ? await dialog.showSaveDialog(window, options)
        : await dialog.showSaveDialog(options);
      if (choice.canceled || !choice.filePath) return null;
      await writeFile(choice.filePath, file.body, { mode: 0o600 });
      return choice.filePath;
    },
  };
}
