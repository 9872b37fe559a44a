// React Query hooks of 2FA applications and message templates: one per bridge operation.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { BridgeArgs } from "../../../../shared/bridge.ts";
import { callBridge } from "../../bridgeHooks.ts";

export const tfaQueryKeys = {
  applications: (accountKey: string) => ["tfa.applications.list", accountKey] as const,
  templates: (accountKey: string, applicationId: string) =>
    ["tfa.templates.list", accountKey, applicationId] as const,
};

/** The applications of the account in view (`enabled` false: not asked, e.g. a sub-account). */
export function useApplications(accountKey: string, enabled = true) {
  return useQuery({
    queryKey: tfaQueryKeys.applications(accountKey),
    queryFn: () => callBridge("tfa.applications.list", { accountKey }),
    enabled,
  });
}

export function useCreateApplication() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (args: BridgeArgs<"tfa.applications.create">) => callBridge("tfa.applications.create", args),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["tfa.applications.list"] }),
  });
}

export function useUpdateApplication() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (args: BridgeArgs<"tfa.applications.update">) => callBridge("tfa.applications.update", args),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["tfa.applications.list"] }),
  });
}

/** The message templates of one application. */
export function useTemplates(accountKey: string, applicationId: string) {
  return useQuery({
    queryKey: tfaQueryKeys.templates(accountKey, applicationId),
    queryFn: () => callBridge("tfa.templates.list", { accountKey, applicationId }),
  });
}

export function useCreateTemplate() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (args: BridgeArgs<"tfa.templates.create">) => callBridge("tfa.templates.create", args),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["tfa.templates.list"] }),
  });
}

export function useUpdateTemplate() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (args: BridgeArgs<"tfa.templates.update">) => callBridge("tfa.templates.update", args),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["tfa.templates.list"] }),
  });
}
