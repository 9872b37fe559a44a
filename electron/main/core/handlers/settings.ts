import type { SettingsDto } from "../../../../shared/bridge.ts";
import type { HandlerTable } from "../context.ts";
import type { Settings } from "../profileStore.ts";

function settingsDto(settings: Readonly<Settings>): SettingsDto {
  return {
    clipboardClearSeconds: settings.clipboardClearSeconds,
    theme: settings.theme ?? "auto",
    expiryNotifications: settings.expiryNotifications ?? true,
  };
}

/** The user's settings (non-secret). */
export const settingsHandlers: HandlerTable<"settings.get" | "settings.update"> = {
  "settings.get": async (_args, context) => settingsDto(context.store.settings),
  "settings.update": async ({ clipboardClearSeconds, theme, expiryNotifications }, context) =>
    settingsDto(
      context.store.update((next) => {
        if (clipboardClearSeconds !== undefined) next.clipboardClearSeconds = clipboardClearSeconds;
        if (theme !== undefined) next.theme = theme;
        if (expiryNotifications !== undefined) next.expiryNotifications = expiryNotifications;
      }),
    ),
};
