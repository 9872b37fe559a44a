import { namedAccount } from "../../../../shared/accountNamed.ts";
import { exportFileOf, keyExportWriter } from "../../../../shared/keyExport.ts";
import type { ExportResultDto } from "../../../../shared/keyLifecycleBridge.ts";
import { activeClient, activeProfile, type HandlerTable } from "../context.ts";
import { DOWNLOAD_PATH_PREFIX } from "../exportDownloads.ts";
import { walkKeys } from "../keyWalk.ts";

/**
 * Export of the keys in view (filter and sort as the table has them), made here from the
 * service's pages: the file, and any publicApiKey in it, never passes through the renderer. The
 * desktop app saves it where the user picks; the browser host keeps it for one download.
 */
export const keyExportHandlers: HandlerTable<"keys.export"> = {
  "keys.export": async ({ accountKey, query, sort, format, withPublicApiKey }, context) => {
    const client = await activeClient(context);
    const now = Date.now();
    const writer = keyExportWriter({ format, withPublicApiKey }, now);
    const pieces = [writer.start()];
    let count = 0;
    await walkKeys(client, accountKey, query, sort, (keys) => {
      count += keys.length;
      pieces.push(writer.keys(keys));
    });
    pieces.push(writer.end());
    // The file is named for where its keys come from: the profile and the account's name.
    const accounts = await client.accounts();
    const account = accounts.find(namedAccount(accountKey));
    const from = { profile: activeProfile(context).name, account: account?.username ?? accountKey };
    const file = { ...exportFileOf(format, now, from), body: Buffer.from(pieces.join(""), "utf8") };
    if (context.exportFiles) {
      const path = await context.exportFiles.save(file);
      return path === null ? { delivered: "cancelled", count } : { delivered: "file", path, count };
    }
    const id = context.downloads.add(file);
    const answer: ExportResultDto = {
      delivered: "download",
      url: `${DOWNLOAD_PATH_PREFIX}${id}`,
      fileName: file.fileName,
      count,
    };
    return answer;
  },
};
