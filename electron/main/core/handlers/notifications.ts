import type { NotificationsShownDto } from "../../../../shared/bridge.ts";
import type { HandlerTable } from "../context.ts";

/**
 * Shows the notifications the renderer found due (keys expiring soon): main shows them as the
 * system's in the desktop app (its renderer may not: the window's hardening refuses every
 * permission request, notifications included); the browser host has no notifier, so the page is
 * told to show them itself. Nothing is shown when the admin turned them off in Settings, whatever
 * the renderer asks.
 */
export const notificationHandlers: HandlerTable<"notifications.show"> = {
  "notifications.show": async ({ items }, context): Promise<NotificationsShownDto> => {
    if (context.store.settings.expiryNotifications === false) return { shownBy: "off" };
    if (context.notifier === undefined) return { shownBy: "page" };
    if (!context.notifier.isSupported()) return { shownBy: "unsupported" };
    for (const item of items) context.notifier.show(item);
    return { shownBy: "main" };
  },
};
