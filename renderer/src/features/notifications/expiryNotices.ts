import { EXPIRING_SOON_DAYS, isExpiringSoon, validityOf } from "../../../../shared/apiKeyRules.ts";
import type { ApiKeyView, NotificationItemDto } from "../../../../shared/bridge.ts";
import { parseApiDateTime } from "../../../../shared/datetime.ts";
import { formatLocal, formatRelative } from "../../time.ts";

/**
 * Which keys to announce as expiring soon, and in what words. Plain functions: the keys, the time
 * and the record of what was announced go in; the keys due and the new record come out.
 */

/** The fields of a key the rule reads: never its publicApiKey (a view carries only a hint anyway). */
export type ExpiringKey = Pick<ApiKeyView, "key" | "name" | "enabled" | "validFrom" | "validTo">;

/** Whose keys these are: a key id is unique only within a profile's account (a sync keeps ids). */
export interface NoticeScope {
  profile: string;
  profileName: string;
  accountKey: string;
  /** The account in words (its username), or its key when not known yet. */
  accountName: string;
}

/** What was announced: "<profile> <accountKey> <key id>" → the local day ("2026-11-29") it was. */
export type NotifiedRecord = Record<string, string>;

/**
 * The local calendar day of an instant, "YYYY-MM-DD": a key is announced once per such day.
 * @internal Exported for tests.
 */
export function localDay(now: number): string {
  const date = new Date(now);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

const recordId = (scope: NoticeScope, key: ExpiringKey) => `${scope.profile} ${scope.accountKey} ${key.key}`;

/**
 * The keys to announce now: enabled keys in their window that end within the warning window
 * (isExpiringSoon, EXPIRING_SOON_DAYS), each at most once per local calendar day; none when the
 * setting is off. The record answered keeps today's entries only (older days no longer matter),
 * so it stays as small as a day's announcements.
 */
export function dueExpiryNotices(input: {
  keys: readonly ExpiringKey[];
  now: number;
  notified: Readonly<NotifiedRecord>;
  enabled: boolean;
  scope: NoticeScope;
}): { due: ExpiringKey[]; notified: NotifiedRecord } {
  const today = localDay(input.now);
  const notified: NotifiedRecord = Object.fromEntries(
    Object.entries(input.notified).filter(([, day]) => day === today),
  );
  if (!input.enabled) return { due: [], notified };
  const due = input.keys.filter(
    (key) => isExpiringSoon(validityOf(key), input.now) && notified[recordId(input.scope, key)] !== today,
  );
  for (const key of due) notified[recordId(input.scope, key)] = today;
  return { due, notified };
}

/** Above this many keys due at once, one notification sums them up instead of one each. */
const MAX_SINGLE_NOTICES = 3;

/** The notifications of the keys due: the name, account, profile and end; nothing secret. */
export function noticeItems(
  due: readonly ExpiringKey[],
  scope: NoticeScope,
  now: number,
): NotificationItemDto[] {
  const where = `${scope.accountName} on ${scope.profileName}`;
  const endOf = (key: ExpiringKey) => parseApiDateTime(key.validTo ?? "") ?? now;
  if (due.length <= MAX_SINGLE_NOTICES) {
    return due.map((key) => ({
      title: `API key “${key.name}” expires ${formatRelative(endOf(key), now)}`,
      body: `${where}: it ends ${formatLocal(endOf(key))}.`,
    }));
  }
  const soonest = [...due].sort((a, b) => endOf(a) - endOf(b));
  const named = soonest.slice(0, MAX_SINGLE_NOTICES).map((key) => `“${key.name}”`);
  return [
    {
      title: `${due.length} API keys expire within ${EXPIRING_SOON_DAYS} days`,
      body: `${where}: ${named.join(", ")} and ${due.length - named.length} more.`,
    },
  ];
}
