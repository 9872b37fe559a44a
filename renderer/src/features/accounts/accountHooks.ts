// React Query hooks of the accounts of the active profile: one per bridge operation.

import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { BridgeArgs } from "../../../../shared/bridge.ts";
import { callBridge } from "../../bridgeHooks.ts";
import { useProfileScope } from "../../profileScope.ts";
import { accountLabel } from "./actingOn.ts";

const accountQueryKeys = {
  list: (profile: string) => ["accounts.list", { profile }] as const,
};

/** A profile's own account and its sub-accounts. */
export const accountsQuery = (profile: string) =>
  queryOptions({
    queryKey: accountQueryKeys.list(profile),
    queryFn: () => callBridge("accounts.list", { profile }),
  });

/** The accounts of the view's profile. */
export function useAccounts() {
  return useQuery(accountsQuery(useProfileScope().id));
}

/** Adds a sub-account of the Local profile's own account. */
export function useAddSubAccount() {
  const queryClient = useQueryClient();
  const profile = useProfileScope().id;
  return useMutation({
    mutationFn: (args: BridgeArgs<"accounts.addSubAccount">) =>
      callBridge("accounts.addSubAccount", { ...args, profile }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountQueryKeys.list(profile) }),
  });
}

/** An account of the view's profile in words ("owner (own account)"), for what acts on it. */
export function useAccountLabel(accountKey: string): string {
  return accountLabel(accountKey, useAccounts().data);
}
