// React Query hooks over the bridge: one per operation. A failed call becomes the query's error,
// a BridgeFailure carrying the typed {messageId, text, validationErrors}.

import {
  type QueryClient,
  type QueryKey,
  queryOptions,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";
import { useEffect } from "react";
import type {
  ActiveProfileStatusDto,
  BridgeArgs,
  BridgeError,
  BridgeMethod,
  BridgeResult,
  BridgeResults,
} from "../../shared/bridge.ts";
import { getBridge } from "./bridge.ts";

export class BridgeFailure extends Error {
  readonly error: BridgeError;
  constructor(error: BridgeError) {
    super(error.text);
    this.name = "BridgeFailure";
    this.error = error;
  }
}

/** What to tell the user about a failed call: the bridge's own text, else the error's message. */
export function errorText(error: unknown): string {
  return error instanceof BridgeFailure ? error.error.text : String((error as Error)?.message ?? error);
}

/** Calls a bridge method; resolves with its value, rejects with a BridgeFailure. */
export async function callBridge<M extends BridgeMethod>(
  method: M,
  args: BridgeArgs<M>,
): Promise<BridgeResults[M]> {
  const call = getBridge()[method] as (args: BridgeArgs<M>) => Promise<BridgeResult<BridgeResults[M]>>;
  const result = await call(args);
  if (!result.ok) {
    throw new BridgeFailure(result.error);
  }
  return result.value;
}

/** Query keys: every query of a method starts with its name, so one invalidation covers it. */
export const queryKeys = {
  serviceStatus: () => ["service.status"] as const,
  activeProfileStatus: () => ["profiles.checkActive"] as const,
};

/** The embedded key service (the Local profile's) and where credentials are kept. */
export const serviceStatusQuery = () =>
  queryOptions({
    queryKey: queryKeys.serviceStatus(),
    queryFn: () => callBridge("service.status", undefined),
  });

export function useServiceStatus() {
  return useQuery(serviceStatusQuery());
}

/**
 * How often the header checks a remote active profile's service.
 * @internal Exported for tests.
 */
export const ACTIVE_STATUS_POLL_MS = 10_000;

/**
 * When to check the active profile's service again: a remote one every ACTIVE_STATUS_POLL_MS,
 * except while it refuses the credentials (asking again would only count more failed sign-ins
 * until it throttles; editing the profile checks again). The embedded service runs in the app
 * itself: it is checked when the profile is activated or on request, not polled.
 * @internal Exported for tests.
 */
export function activeStatusPollMs(status: ActiveProfileStatusDto | undefined): number | false {
  if (status === undefined || status.profile.kind === "local") return false;
  const { reachable, credentialsAccepted } = status.verdict;
  return reachable && !credentialsAccepted ? false : ACTIVE_STATUS_POLL_MS;
}

/** The active profile and whether its service answers (kept fresh, see activeStatusPollMs). */
export const activeProfileStatusQuery = () =>
  queryOptions({
    queryKey: queryKeys.activeProfileStatus(),
    queryFn: () => callBridge("profiles.checkActive", undefined),
    refetchInterval: (query) => activeStatusPollMs(query.state.data),
  });

export function useActiveProfileStatus() {
  return useQuery(activeProfileStatusQuery());
}

/**
 * A call that finds the active profile's service unreachable makes the header check again at once
 * (instead of showing "reachable" until the next poll).
 */
export function useRecheckWhenUnreachable(): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    const recheck = (error: unknown) => {
      if (error instanceof BridgeFailure && error.error.messageId === "UNREACHABLE") {
        void queryClient.invalidateQueries({ queryKey: queryKeys.activeProfileStatus() });
      }
    };
    // The header's own check failing is not a reason to check again.
    return onFailedCalls(
      queryClient,
      recheck,
      (queryKey) => queryKey[0] !== queryKeys.activeProfileStatus()[0],
    );
  }, [queryClient]);
}

/** Refetches what main's events make stale: everything when the active profile changes or a restore replaced the data. */
export function useBridgeEvents(): void {
  const queryClient = useQueryClient();
  useEffect(
    () =>
      getBridge().onEvent((event) => {
        if (event.type === "profile-changed" || event.type === "data-restored") {
          void queryClient.invalidateQueries();
        } else if (event.type === "service-status") {
          queryClient.setQueryData(queryKeys.serviceStatus(), event.status);
        }
      }),
    [queryClient],
  );
}

/**
 * "Unreachable" lasts no longer than the failure: once the header's check reaches the active
 * profile's service again, the queries that failed as unreachable are asked again (and the page's
 * banner goes when they answer).
 */
export function useRetryWhenReachable(): void {
  const queryClient = useQueryClient();
  useEffect(
    () =>
      queryClient.getQueryCache().subscribe((event) => {
        const isTheCheck = event.query.queryKey[0] === queryKeys.activeProfileStatus()[0];
        const data = event.query.state.data as ActiveProfileStatusDto | undefined;
        if (
          !isTheCheck ||
          event.type !== "updated" ||
          event.action.type !== "success" ||
          !data?.verdict.reachable
        )
          return;
        void queryClient.refetchQueries({
          predicate: (query) =>
            query.state.status === "error" &&
            query.getObserversCount() > 0 &&
            query.state.error instanceof BridgeFailure &&
            query.state.error.error.messageId === "UNREACHABLE",
        });
      }),
    [queryClient],
  );
}

/** Main refused the call because its profile is no longer the active one: nothing was done. */
export function isProfileSwitchRefusal(error: unknown): boolean {
  return error instanceof BridgeFailure && error.error.messageId === "PROFILE_CHANGED";
}

/**
 * A call refused because another profile became active (another window switched it): the profiles
 * are read again, so the views follow the active profile and load its data.
 */
export function useFollowProfileChanges(): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    const follow = (error: unknown) => {
      if (isProfileSwitchRefusal(error)) void queryClient.invalidateQueries({ queryKey: ["profiles.list"] });
    };
    const stopFollowing = onFailedCalls(queryClient, follow);
    const stopDropping = dropProfileSwitchRefusals(queryClient);
    return () => {
      stopFollowing();
      stopDropping();
    };
  }, [queryClient]);
}

/**
 * A query refused because the profile it was asked for was left meanwhile holds no error of that
 * profile: kept, it showed as the page's error (and the view's) on the return to that profile. The
 * refusal is forgotten: a query with an earlier answer keeps that answer, as of its time; one without
 * is dropped once no view uses it. Either is stale, so a return to that profile asks it afresh
 * (refetching it now would be refused again).
 * @internal Exported for tests.
 */
export function dropProfileSwitchRefusals(queryClient: QueryClient): () => void {
  const cache = queryClient.getQueryCache();
  return cache.subscribe((event) => {
    const refused =
      (event.type === "updated" &&
        event.action.type === "error" &&
        isProfileSwitchRefusal(event.action.error)) ||
      (event.type === "observerRemoved" && isProfileSwitchRefusal(event.query.state.error));
    if (!refused) return;
    const { queryKey } = event.query;
    // After the cache's own notification: a query is not removed while it tells its observers.
    queueMicrotask(() => {
      const query = cache.find({ queryKey, exact: true });
      if (!query || !isProfileSwitchRefusal(query.state.error)) return;
      const { data, dataUpdatedAt } = query.state;
      if (data !== undefined) queryClient.setQueryData(queryKey, data, { updatedAt: dataUpdatedAt });
      else if (query.getObserversCount() === 0) {
        queryClient.removeQueries({ queryKey, exact: true });
        return;
      }
      void queryClient.invalidateQueries({ queryKey, exact: true, refetchType: "none" });
    });
  });
}

/**
 * Tells `listener` the error of every query (whose key `ofQuery` accepts) and every mutation that
 * fails from now on; answers the function that stops it.
 */
function onFailedCalls(
  queryClient: QueryClient,
  listener: (error: unknown) => void,
  ofQuery: (queryKey: QueryKey) => boolean = () => true,
): () => void {
  const unsubscribeQueries = queryClient.getQueryCache().subscribe((event) => {
    if (event.type === "updated" && event.action.type === "error" && ofQuery(event.query.queryKey))
      listener(event.action.error);
  });
  const unsubscribeMutations = queryClient.getMutationCache().subscribe((event) => {
    if (event.type === "updated" && event.action.type === "error") listener(event.action.error);
  });
  return () => {
    unsubscribeQueries();
    unsubscribeMutations();
  };
}
