import type { SettingsDto } from "../../../../shared/bridge.ts";
import type { HandlerTable } from "../context.ts";
import type { Settings } from "../profileStore.ts";

function settingsDto(settings: Readonly<Settings>): SettingsDto {
  return { clipboardClearSeconds: settings.clipboardClearSeconds, theme: settings.theme ?? "auto" };
}

/** The user's settings (non-secret). */
export const settingsHandlers: HandlerTable<"settings.get" | "settings.update"> = {
  "settings.get": async (_args, context) => settingsDto(context.store.settings),
  "settings.update": async ({ clipboardClearSeconds, theme }, context) =>
    settingsDto(
      context.store.update((next) => {
        if (clipboardClearSeconds !== undefined) next.clipboardClearSeconds = clipboardClearSeconds;
        if (theme !== undefined) next.theme = theme;
      }),
    ),
};
