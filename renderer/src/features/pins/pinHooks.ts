// React Query hooks of the PIN inbox: the list, kept live by the bridge's "pin" and "pin-state" events.

import { type QueryKey, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { BridgeArgs, BridgeEvent } from "../../../../shared/bridge.ts";
import type { CapturedPinDto, PinStateDto } from "../../../../shared/tfa.ts";
import { getBridge } from "../../bridge.ts";
import { callBridge } from "../../bridgeHooks.ts";
import { type ProfileScope, useProfileScope } from "../../profileScope.ts";

export type PinFilters = Omit<BridgeArgs<"pins.list">, "profile">;

/**
 * A list is the profile's: another profile's PINs are another list, never shown while the new
 * profile's load (or fail to).
 */
const pinQueryKeys = {
  profile: (profile: string) => ["pins.list", { profile }] as const,
  list: (profile: string, filters: PinFilters) => ["pins.list", { profile, ...filters }] as const,
};

/**
 * Empty filters are left out, so that "no filter" has one cache entry.
 * @internal Exported for tests.
 */
export function cleanFilters(filters: PinFilters): PinFilters {
  return {
    ...(filters.to?.trim() && { to: filters.to.trim() }),
    ...(filters.applicationId?.trim() && { applicationId: filters.applicationId.trim() }),
  };
}

export function usePins(filters: PinFilters) {
  const args = cleanFilters(filters);
  const profile = useProfileScope().id;
  return useQuery({
    queryKey: pinQueryKeys.list(profile, args),
    queryFn: () => callBridge("pins.list", { profile, ...args }),
    // The page's banner says a failure of the profile (unreachable, refused) with what fixes it;
    // the inbox says any other failure itself.
    meta: { errorShownInView: "unless-profile" },
  });
}

/**
 * The list with a newly captured PIN first (once, even if the event repeats a listed PIN). A
 * resent PIN's event does not name its application: the name of a listed PIN of it is taken.
 * @internal Exported for tests.
 */
export function withCapturedPin(pins: readonly CapturedPinDto[], pin: CapturedPinDto): CapturedPinDto[] {
  const applicationName =
    pin.applicationName ?? pins.find((each) => each.applicationId === pin.applicationId)?.applicationName;
  const named = applicationName === undefined ? pin : { ...pin, applicationName };
  return [named, ...pins.filter((each) => each.pinId !== pin.pinId)];
}

/**
 * The list with a verification's outcome on every message of that PIN (a resent PIN has several),
 * or the same list when none of them is listed (React Query then keeps what it has).
 * @internal Exported for tests.
 */
export function withPinState(pins: readonly CapturedPinDto[], state: PinStateDto): readonly CapturedPinDto[] {
  if (!pins.some((pin) => pin.pinId === state.pinId)) return pins;
  return pins.map((pin) =>
    pin.pinId === state.pinId
      ? { ...pin, attemptsRemaining: state.attemptsRemaining, verified: state.verified }
      : pin,
  );
}

function isUnfiltered(queryKey: QueryKey): boolean {
  const filters = queryKey[1] as PinFilters | undefined;
  return filters === undefined || (filters.to === undefined && filters.applicationId === undefined);
}

type PinEvent = Extract<BridgeEvent, { type: "pin" | "pin-state" }>;

/**
 * What a PIN event does to one cached list. A captured PIN ("pin") goes first in the unfiltered
 * list, loaded and not being fetched; any other list is fetched again (its matching rules are the
 * service's). A verification's outcome ("pin-state") changes that PIN's rows in every loaded list.
 * A list being fetched is fetched again either way: its answer may predate the event.
 * @internal Exported for tests.
 */
export function pinEventUpdate(
  queryKey: QueryKey,
  list: { pins: readonly CapturedPinDto[] | undefined; fetching: boolean },
  event: PinEvent,
): { set: readonly CapturedPinDto[] } | "refetch" | "keep" {
  const { pins, fetching } = list;
  if (fetching) return "refetch";
  if (event.type === "pin-state")
    return pins === undefined ? "keep" : { set: withPinState(pins, event.state) };
  return pins !== undefined && isUnfiltered(queryKey) ? { set: withCapturedPin(pins, event.pin) } : "refetch";
}

/**
 * Captured PINs and verifications show in the inbox as they happen (pinEventUpdate). The events
 * come from the Local service only: they update the Local profile's lists, and none while a
 * remote profile is in view.
 */
export function usePinEvents(scope: ProfileScope): void {
  const queryClient = useQueryClient();
  const live = scope.kind === "local";
  const profile = scope.id;
  useEffect(
    () =>
      getBridge().onEvent((event) => {
        if (!live || (event.type !== "pin" && event.type !== "pin-state")) return;
        for (const [queryKey, pins] of queryClient.getQueriesData<CapturedPinDto[]>({
          queryKey: pinQueryKeys.profile(profile),
        })) {
          const fetching = queryClient.getQueryState(queryKey)?.fetchStatus === "fetching";
          const update = pinEventUpdate(queryKey, { pins, fetching }, event);
          if (update === "refetch") {
            // Cancels a fetch in flight and fetches again.
            void queryClient.invalidateQueries({ queryKey, exact: true });
          } else if (update !== "keep") {
            queryClient.setQueryData<readonly CapturedPinDto[]>(queryKey, update.set);
          }
        }
      }),
    [queryClient, live, profile],
  );
}
