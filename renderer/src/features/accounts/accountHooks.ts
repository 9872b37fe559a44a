// React Query hooks of the accounts of the active profile: one per bridge operation.

import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { BridgeArgs } from "../../../../shared/bridge.ts";
import { callBridge } from "../../bridgeHooks.ts";

export const accountQueryKeys = {
  list: () => ["accounts.list"] as const,
};

/** The active profile's own account and its sub-accounts. */
export const accountsQuery = () =>
  queryOptions({
    queryKey: accountQueryKeys.list(),
    queryFn: () => callBridge("accounts.list", undefined),
  });

export function useAccounts() {
  return useQuery(accountsQuery());
}

/** Adds a sub-account of the Local profile's own account. */
export function useAddSubAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (args: BridgeArgs<"accounts.addSubAccount">) => callBridge("accounts.addSubAccount", args),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountQueryKeys.list() }),
  });
}
