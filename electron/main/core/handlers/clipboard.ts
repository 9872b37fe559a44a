import { activeClient, type HandlerTable } from "../context.ts";

/**
 * Copies a key's publicApiKey to the clipboard and clears the clipboard after the configured
 * delay, but only if it still holds that value (the user may have copied something else since).
 */
export const clipboardHandlers: HandlerTable<"clipboard.copyPublicApiKey"> = {
  "clipboard.copyPublicApiKey": async ({ accountKey, key }, context) => {
    const { publicApiKey } = await (await activeClient(context)).get(accountKey, key);
    context.clipboard.writeText(publicApiKey);
    const clearsAfterMs =
      context.clipboardClearMsOverride ?? context.store.settings.clipboardClearSeconds * 1000;
    const timer = setTimeout(() => {
      context.timers.delete(timer);
      if (context.clipboard.readText() === publicApiKey) context.clipboard.writeText("");
    }, clearsAfterMs);
    timer.unref();
    context.timers.add(timer);
    return { clearsAfterMs };
  },
};
