import { activeClient, type HandlerTable } from "../context.ts";

/**
 * Copies a key's publicApiKey to the clipboard and clears the clipboard after the configured
 * delay, but only if it still holds that value (the user may have copied something else since).
 */
export const clipboardHandlers: HandlerTable<"clipboard.copyPublicApiKey"> = {
  "clipboard.copyPublicApiKey": async ({ accountKey, key }, context) => {
    const { publicApiKey } = await (await activeClient(context)).get(accountKey, key);
    await context.clipboard.writeText(publicApiKey);
    const clearsAfterMs =
      context.clipboardClearMsOverride ?? context.store.settings.clipboardClearSeconds * 1000;
    const clearIfStillOurs = async () => {
      if ((await context.clipboard.readText()) === publicApiKey) await context.clipboard.writeText("");
    };
    const timer = setTimeout(() => {
      context.timers.delete(timer);
      clearIfStillOurs().catch((error: Error) =>
        process.stderr.write(`keydesk: could not clear the clipboard: ${error.message}\n`),
      );
    }, clearsAfterMs);
    timer.unref();
    context.timers.add(timer);
    return { clearsAfterMs };
  },
};
