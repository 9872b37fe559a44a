// React Query hooks of the PIN inbox: the list, kept live by the bridge's "pin" and "pin-state" events.

import { type QueryKey, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { BridgeArgs } from "../../../../shared/bridge.ts";
import type { CapturedPinDto, PinStateDto } from "../../../../shared/tfa.ts";
import { getBridge } from "../../bridge.ts";
import { callBridge } from "../../bridgeHooks.ts";

export type PinFilters = BridgeArgs<"pins.list">;

export const pinQueryKeys = {
  all: () => ["pins.list"] as const,
  list: (filters: PinFilters) => ["pins.list", filters] as const,
};

/** Empty filters are left out, so that "no filter" has one cache entry. */
export function cleanFilters(filters: PinFilters): PinFilters {
  return {
    ...(filters.to?.trim() && { to: filters.to.trim() }),
    ...(filters.applicationId?.trim() && { applicationId: filters.applicationId.trim() }),
  };
}

export function usePins(filters: PinFilters) {
  const args = cleanFilters(filters);
  return useQuery({
    queryKey: pinQueryKeys.list(args),
    queryFn: () => callBridge("pins.list", args),
  });
}

/**
 * The list with a newly captured PIN first (once, even if the event repeats a listed PIN). A
 * resent PIN's event does not name its application: the name of a listed PIN of it is taken.
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

/**
 * What a "pin" event does to one cached list: the unfiltered list, loaded and not being fetched,
 * takes the PIN first at once; any other is fetched again. A list still loading (or reloading)
 * would otherwise drop the event and then show an answer taken before the PIN was captured.
 */
export function pinEventAction(
  queryKey: QueryKey,
  state: { hasData: boolean; fetching: boolean },
): "prepend" | "refetch" {
  return isUnfiltered(queryKey) && state.hasData && !state.fetching ? "prepend" : "refetch";
}

/**
 * A captured PIN arrives as a "pin" event: it is prepended to the unfiltered list at once, and
 * the filtered lists (whose matching rules are the service's) are refetched (see pinEventAction).
 * A "pin-state" event (attempts used, verified) changes that PIN's rows in every list at once; a
 * list still fetching is fetched again, as its answer may predate the verification. The events
 * come from the Local service only: with a remote profile active (`live` false) they are ignored.
 */
export function usePinEvents(live: boolean): void {
  const queryClient = useQueryClient();
  useEffect(
    () =>
      getBridge().onEvent((event) => {
        if (!live) return;
        if (event.type === "pin-state") {
          for (const [queryKey, pins] of queryClient.getQueriesData<CapturedPinDto[]>({
            queryKey: pinQueryKeys.all(),
          })) {
            if (queryClient.getQueryState(queryKey)?.fetchStatus === "fetching") {
              void queryClient.invalidateQueries({ queryKey, exact: true });
            } else if (pins !== undefined) {
              queryClient.setQueryData<readonly CapturedPinDto[]>(queryKey, withPinState(pins, event.state));
            }
          }
          return;
        }
        if (event.type !== "pin") return;
        const pin = event.pin;
        for (const [queryKey, pins] of queryClient.getQueriesData<CapturedPinDto[]>({
          queryKey: pinQueryKeys.all(),
        })) {
          const fetching = queryClient.getQueryState(queryKey)?.fetchStatus === "fetching";
          if (pins !== undefined && pinEventAction(queryKey, { hasData: true, fetching }) === "prepend") {
            queryClient.setQueryData<CapturedPinDto[]>(queryKey, withCapturedPin(pins, pin));
          } else {
            // Cancels a fetch in flight and fetches again: the new answer holds the PIN.
            void queryClient.invalidateQueries({ queryKey, exact: true });
          }
        }
      }),
    [queryClient, live],
  );
}
