// React Query hooks over the bridge: one per operation. A failed call becomes the query's error,
// a BridgeFailure carrying the typed {messageId, text, validationErrors}.

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type {
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
  keys: (args: BridgeArgs<"keys.list">) => ["keys.list", args] as const,
};

export function useServiceStatus() {
  return useQuery({
    queryKey: queryKeys.serviceStatus(),
    queryFn: () => callBridge("service.status", undefined),
  });
}

/** The keys of an account of the active profile ("_": the profile's own account). */
export function useKeys(args: BridgeArgs<"keys.list"> = { accountKey: "_" }) {
  return useQuery({
    queryKey: queryKeys.keys(args),
    queryFn: () => callBridge("keys.list", args),
  });
}

/** Refetches what main's events make stale: everything when the active profile changes. */
export function useBridgeEvents(): void {
  const queryClient = useQueryClient();
  useEffect(
    () =>
      getBridge().onEvent((event) => {
        if (event.type === "profile-changed") {
          void queryClient.invalidateQueries();
        } else if (event.type === "service-status") {
          queryClient.setQueryData(queryKeys.serviceStatus(), event.status);
        }
      }),
    [queryClient],
  );
}
