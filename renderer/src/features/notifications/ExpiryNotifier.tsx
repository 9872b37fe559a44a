import { useEffect, useRef } from "react";
import { useProfileScope } from "../../profileScope.ts";
import { useAccounts } from "../accounts/accountHooks.ts";
import { useSettings } from "../settings/settingsHooks.ts";
import { dueExpiryNotices, type NoticeScope, noticeItems } from "./expiryNotices.ts";
import { useExpiringKeys, useShowNotifications } from "./notificationHooks.ts";
import { loadNotified, saveNotified } from "./notifiedRecord.ts";
import { showOnPage } from "./pageNotifications.ts";

/**
 * Announces the keys of the account in view that expire within the warning window, once per key
 * per day, unless the admin turned it off in Settings. Runs in the renderer because the renderer
 * knows the profile and account in view and already asks the service for keys; the notifications
 * themselves are main's (the desktop's system notifications) or, in the browser host, the page's.
 * A key is recorded as announced only once it was shown, so a page without the permission yet
 * announces it after the admin allows it.
 */
export function ExpiryNotifier(props: { accountKey: string }) {
  const scope = useProfileScope();
  const settings = useSettings();
  const enabled = settings.data?.expiryNotifications === true;
  const expiring = useExpiringKeys(props.accountKey, enabled);
  const accounts = useAccounts();
  const show = useShowNotifications();
  // One announcement at a time: a refetch while one is shown must not announce the same keys again.
  const busy = useRef(false);
  const account = accounts.data?.find((candidate) =>
    props.accountKey === "_"
      ? candidate.parentAccountKey === null
      : candidate.accountKey === props.accountKey,
  );
  const accountName = account?.username;
  const { mutate } = show;

  useEffect(() => {
    if (!enabled || !expiring.data || accountName === undefined || busy.current) return;
    const noticeScope: NoticeScope = {
      profile: scope.id,
      profileName: scope.name,
      accountKey: props.accountKey,
      accountName,
    };
    const now = Date.now();
    const { due, notified } = dueExpiryNotices({
      keys: expiring.data.keys,
      now,
      notified: loadNotified(localStorage),
      enabled,
      scope: noticeScope,
    });
    if (due.length === 0) return;
    const items = noticeItems(due, noticeScope, now);
    busy.current = true;
    mutate(items, {
      onSuccess: ({ shownBy }) => {
        if (shownBy === "main" || (shownBy === "page" && showOnPage(items)))
          saveNotified(localStorage, notified);
      },
      onSettled: () => {
        busy.current = false;
      },
    });
  }, [enabled, expiring.data, accountName, scope.id, scope.name, props.accountKey, mutate]);

  return null;
}
