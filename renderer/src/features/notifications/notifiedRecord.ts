import type { NotifiedRecord } from "./expiryNotices.ts";

/**
 * What was announced today, kept in the page's localStorage: it must survive a reload (and, in the
 * desktop app, a restart: Electron keeps localStorage in the profile folder) but is no setting of
 * the admin's, so it stays out of main's settings file. It holds key ids and days only, never a
 * name or a secret; an unreadable entry counts as nothing announced.
 */
const STORAGE_KEY = "keydesk.expiryNotified";

export function loadNotified(storage: Pick<Storage, "getItem">): NotifiedRecord {
  try {
    const parsed: unknown = JSON.parse(storage.getItem(STORAGE_KEY) ?? "{}");
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return {};
    return Object.fromEntries(
      Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
    );
  } catch {
    return {};
  }
}

export function saveNotified(storage: Pick<Storage, "setItem">, record: NotifiedRecord): void {
  try {
    storage.setItem(STORAGE_KEY, JSON.stringify(record));
  } catch {
    // Storage full or refused: the worst is one more notification of the same key today.
  }
}
