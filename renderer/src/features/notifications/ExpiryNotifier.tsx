import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { namedAccount } from "../../../../shared/accountNamed.ts";
import type { AccountDto } from "../../../../shared/bridge.ts";
import { useProfileScope } from "../../profileScope.ts";
import { accountsQuery } from "../accounts/accountHooks.ts";
import { useSettings } from "../settings/settingsHooks.ts";
import { dueExpiryNotices, type NoticeScope, noticeItems } from "./expiryNotices.ts";
import { useExpiringKeys, useShowNotifications } from "./notificationHooks.ts";
import { loadNotified, saveNotified } from "./notifiedRecord.ts";
import { showOnPage } from "./pageNotifications.ts";

/** The account in words: its username (the key when the list cannot be had). */
function accountName(accounts: readonly AccountDto[], accountKey: string): string {
  const found = accounts.find(namedAccount(accountKey));
  return found?.username ?? accountKey;
}

/**
 * Announces the keys of the account in view that expire within the warning window, once per key
 * per day, unless the admin turned it off in Settings. Runs in the renderer because the renderer
 * knows the profile and account in view and already asks the service for keys; the notifications
 * themselves are main's (the desktop's system notifications) or, in the browser host, the page's.
 * A key is recorded as announced only once it was shown, so a page without the permission yet
 * announces it after the admin allows it. A background check: it observes no query but its own
 * (an accounts list failing here must not hold the page's failure banner in every view).
 */
export function ExpiryNotifier(props: { accountKey: string }) {
  const scope = useProfileScope();
  const queryClient = useQueryClient();
  const settings = useSettings();
  const enabled = settings.data?.expiryNotifications === true;
  const expiring = useExpiringKeys(props.accountKey, enabled);
  const { mutateAsync } = useShowNotifications();
  // One announcement at a time: a refetch while one is shown must not announce the same keys again.
  const busy = useRef(false);

  useEffect(() => {
    const keys = expiring.data?.keys;
    if (!enabled || !keys || busy.current) return;
    busy.current = true;
    const announce = async () => {
      const accounts = await queryClient.ensureQueryData(accountsQuery(scope.id)).catch(() => []);
      const noticeScope: NoticeScope = {
        profile: scope.id,
        profileName: scope.name,
        accountKey: props.accountKey,
        accountName: accountName(accounts, props.accountKey),
      };
      const now = Date.now();
      const { due, notified } = dueExpiryNotices({
        keys,
        now,
        notified: loadNotified(localStorage),
        enabled,
        scope: noticeScope,
      });
      if (due.length === 0) return;
      const items = noticeItems(due, noticeScope, now);
      const { shownBy } = await mutateAsync(items);
      if (shownBy === "main" || (shownBy === "page" && showOnPage(items)))
        saveNotified(localStorage, notified);
    };
    announce()
      // Not shown (the service or main failed): the next check tries again.
      .catch(() => undefined)
      .finally(() => {
        busy.current = false;
      });
  }, [enabled, expiring.data, scope.id, scope.name, props.accountKey, queryClient, mutateAsync]);

  return null;
}
