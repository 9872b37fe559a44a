// React Query hooks of 2FA applications and message templates: one per bridge operation.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { BridgeArgs } from "../../../../shared/bridge.ts";
import { callBridge } from "../../bridgeHooks.ts";
import { useProfileScope } from "../../profileScope.ts";

const tfaQueryKeys = {
  applications: (profile: string, accountKey: string) =>
    ["tfa.applications.list", { profile, accountKey }] as const,
  templates: (profile: string, accountKey: string, applicationId: string) =>
    ["tfa.templates.list", { profile, accountKey }, applicationId] as const,
};

/** The applications of the account in view (`enabled` false: not asked, e.g. a sub-account). */
export function useApplications(accountKey: string, enabled = true) {
  const profile = useProfileScope().id;
  return useQuery({
    queryKey: tfaQueryKeys.applications(profile, accountKey),
    queryFn: () => callBridge("tfa.applications.list", { profile, accountKey }),
    enabled,
  });
}

export function useCreateApplication() {
  const queryClient = useQueryClient();
  const profile = useProfileScope().id;
  return useMutation({
    mutationFn: (args: BridgeArgs<"tfa.applications.create">) =>
      callBridge("tfa.applications.create", { ...args, profile }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["tfa.applications.list"] }),
  });
}

export function useUpdateApplication() {
  const queryClient = useQueryClient();
  const profile = useProfileScope().id;
  return useMutation({
    mutationFn: (args: BridgeArgs<"tfa.applications.update">) =>
      callBridge("tfa.applications.update", { ...args, profile }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["tfa.applications.list"] }),
  });
}

/** The message templates of one application. */
export function useTemplates(accountKey: string, applicationId: string) {
  const profile = useProfileScope().id;
  return useQuery({
    queryKey: tfaQueryKeys.templates(profile, accountKey, applicationId),
    queryFn: () => callBridge("tfa.templates.list", { profile, accountKey, applicationId }),
  });
}

export function useCreateTemplate() {
  const queryClient = useQueryClient();
  const profile = useProfileScope().id;
  return useMutation({
    mutationFn: (args: BridgeArgs<"tfa.templates.create">) =>
      callBridge("tfa.templates.create", { ...args, profile }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["tfa.templates.list"] }),
  });
}

export function useUpdateTemplate() {
  const queryClient = useQueryClient();
  const profile = useProfileScope().id;
  return useMutation({
    mutationFn: (args: BridgeArgs<"tfa.templates.update">) =>
      callBridge("tfa.templates.update", { ...args, profile }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["tfa.templates.list"] }),
  });
}
