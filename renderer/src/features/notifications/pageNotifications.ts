// The page's own notifications (the Notification API), for the browser host: main has no screen of
// the user's there. The desktop app never uses these: its window refuses every permission request,
// and main shows system notifications instead.

/** The page's Notification API, or null where the browser has none. */
function api(): typeof Notification | null {
  return typeof window !== "undefined" && "Notification" in window ? window.Notification : null;
}

/** "granted", "denied", "default" (not asked yet), or "unsupported". */
export function pagePermission(): NotificationPermission | "unsupported" {
  return api()?.permission ?? "unsupported";
}

/**
 * Asks the browser for the permission: only ever after the admin turns the notifications on (or
 * asks again in Settings), never by itself on load.
 */
export async function askPagePermission(): Promise<NotificationPermission | "unsupported"> {
  const notification = api();
  if (!notification) return "unsupported";
  return notification.permission === "default" ? notification.requestPermission() : notification.permission;
}

/** Shows them; false when the page may not (no API, or no permission), and nothing was shown. */
export function showOnPage(items: readonly { title: string; body: string }[]): boolean {
  const notification = api();
  if (notification?.permission !== "granted") return false;
  for (const item of items) new notification(item.title, { body: item.body });
  return true;
}
