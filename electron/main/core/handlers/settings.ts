import type { HandlerTable } from "../context.ts";

/** The user's settings (non-secret). */
export const settingsHandlers: HandlerTable<"settings.get" | "settings.update"> = {
  "settings.get": async (_args, context) => ({
    clipboardClearSeconds: context.store.settings.clipboardClearSeconds,
  }),
  "settings.update": async ({ clipboardClearSeconds }, context) => {
    const settings = context.store.update((next) => {
      if (clipboardClearSeconds !== undefined) next.clipboardClearSeconds = clipboardClearSeconds;
    });
    return { clipboardClearSeconds: settings.clipboardClearSeconds };
  },
};
