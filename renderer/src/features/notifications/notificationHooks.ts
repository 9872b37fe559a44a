// React Query hooks of the expiry notifications: one per bridge operation.

import { useMutation, useQuery } from "@tanstack/react-query";
import { MAX_KEY_PAGE_LIMIT } from "../../../../shared/bridge.ts";
import { callBridge } from "../../bridgeHooks.ts";
import { EXPIRING_KEYS_QUERY } from "../../keyListQueries.ts";
import { useProfileScope } from "../../profileScope.ts";

/** Keys that cross into the warning window (and a new day) are noticed within this long. */
const RECHECK_MS = 60 * 60 * 1000;

/**
 * The account's keys expiring within the warning window, as the service narrows them (the Keys
 * view's filter "Expiring within 7 days"): one page, soonest first. Not under the "keys.page" prefix
 * (whose caches hold pages the key mutations rewrite in place); invalidateKeyLists asks again.
 */
export function useExpiringKeys(accountKey: string, enabled: boolean) {
  const profile = useProfileScope().id;
  const query = { state: "expiring-soon" } as const;
  const sort = { by: "validTo", desc: false } as const;
  return useQuery({
    queryKey: [EXPIRING_KEYS_QUERY, { profile, accountKey }] as const,
    queryFn: () => callBridge("keys.page", { profile, accountKey, query, sort, limit: MAX_KEY_PAGE_LIMIT }),
    enabled,
    refetchInterval: RECHECK_MS,
    // A background check: its failure is no banner of its own (in every view, Settings included);
    // the Keys view's list says when the service fails, and the next check tries again.
    meta: { errorShownInView: true },
  });
}

/** Shows notifications: main shows them (desktop), or answers that the page must (browser host). */
export function useShowNotifications() {
  return useMutation({
    mutationFn: (items: { title: string; body: string }[]) => callBridge("notifications.show", { items }),
  });
}
