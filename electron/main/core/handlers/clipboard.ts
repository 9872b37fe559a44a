import type { CopyResultDto } from "../../../../shared/bridge.ts";
import { type ClipboardPort, PAGE_CLIPBOARD } from "../../corePorts.ts";
import { activeClient, type CoreContext, type HandlerTable } from "../context.ts";

/**
 * Copies a key's publicApiKey. With a system clipboard (the desktop app) main writes it and clears
 * it after the configured delay, but only if the clipboard still holds that value (the user may
 * have copied something else since); the value never leaves main. With the page clipboard (the
 * browser host) the value is answered to the page, which writes and clears it the same way.
 */
export const clipboardHandlers: HandlerTable<"clipboard.copyPublicApiKey"> = {
  "clipboard.copyPublicApiKey": async ({ accountKey, key }, context): Promise<CopyResultDto> => {
    const { publicApiKey } = await (await activeClient(context)).get(accountKey, key);
    const clearsAfterMs =
      context.clipboardClearMsOverride ?? context.store.settings.clipboardClearSeconds * 1000;
    if (context.clipboard === PAGE_CLIPBOARD) {
      return { writtenBy: "page", clearsAfterMs, publicApiKey };
    }
    await context.clipboard.writeText(publicApiKey);
    scheduleClear(context, context.clipboard, publicApiKey, clearsAfterMs);
    return { writtenBy: "main", clearsAfterMs };
  },
};

function scheduleClear(
  context: CoreContext,
  clipboard: ClipboardPort,
  publicApiKey: string,
  clearsAfterMs: number,
): void {
  const clearIfStillOurs = async () => {
    if ((await clipboard.readText()) === publicApiKey) await clipboard.writeText("");
  };
  const timer = setTimeout(() => {
    context.timers.delete(timer);
    clearIfStillOurs().catch((error: Error) =>
      process.stderr.write(`keydesk: could not clear the clipboard: ${error.message}\n`),
    );
  }, clearsAfterMs);
  timer.unref();
  context.timers.add(timer);
}
