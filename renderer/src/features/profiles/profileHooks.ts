// React Query hooks of the connection profiles: one per bridge operation.

import { queryOptions, useIsMutating, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { BridgeArgs, ProfileDto } from "../../../../shared/bridge.ts";
import { callBridge, queryKeys } from "../../bridgeHooks.ts";

const profileQueryKeys = {
  list: () => ["profiles.list"] as const,
};

export const profilesQuery = () =>
  queryOptions({
    queryKey: profileQueryKeys.list(),
    queryFn: () => callBridge("profiles.list", undefined),
  });

export function useProfiles() {
  return useQuery(profilesQuery());
}

/** The active profile, or undefined while the list loads. */
export function useActiveProfile() {
  const profiles = useProfiles();
  return profiles.data?.find((profile) => profile.active);
}

/**
 * A change of the profiles: the list, and the header's check of the active one (it may be the one
 * changed). The dialog that made the change waits for the list only: the check asks the active
 * profile's service, which may take its whole timeout to answer, and is not what was changed.
 */
function useProfileListMutation<A, R>(call: (args: A) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.activeProfileStatus() });
      return queryClient.invalidateQueries({ queryKey: profileQueryKeys.list() });
    },
  });
}

export function useAddProfile() {
  return useProfileListMutation((args: BridgeArgs<"profiles.add">) => callBridge("profiles.add", args));
}

export function useEditProfile() {
  return useProfileListMutation((args: BridgeArgs<"profiles.edit">) => callBridge("profiles.edit", args));
}

export function useRemoveProfile() {
  return useProfileListMutation((args: BridgeArgs<"profiles.remove">) => callBridge("profiles.remove", args));
}

/**
 * Activating changes what every other query answers. The list says at once which profile is active
 * (the views' profile scope follows it, and their queries are that profile's from then on); then
 * everything is refetched.
 */
/** Names the activation, so that the app can tell a switch is under way (useSwitchingProfile). */
const ACTIVATE_KEY = ["profiles.activate"] as const;

export function useActivateProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ACTIVATE_KEY,
    mutationFn: (args: BridgeArgs<"profiles.activate">) => callBridge("profiles.activate", args),
    onSuccess: (_answer, { id }) => {
      queryClient.setQueryData(profileQueryKeys.list(), (list: ProfileDto[] | undefined) =>
        list?.map((profile) => ({ ...profile, active: profile.id === id })),
      );
      return queryClient.invalidateQueries();
    },
  });
}

/** Tests a saved profile ({id}) or unsaved settings ({baseUrl, username, password}). */
export function useTestProfile() {
  return useMutation({
    mutationFn: (args: BridgeArgs<"profiles.test">) => callBridge("profiles.test", args),
  });
}

/** The embedded service's address and owner credentials, fetched only when asked for. */
export function useRevealLocalCredentials() {
  return useMutation({
    mutationFn: () => callBridge("profiles.revealLocalCredentials", undefined),
  });
}

/**
 * Whether a profile switch is under way: from the click until the service has said the new
 * profile is active. The rows of the one left are not shown meanwhile: an action on them would
 * reach whichever service is active when it lands.
 */
export function useSwitchingProfile(): boolean {
  return useIsMutating({ mutationKey: ACTIVATE_KEY }) > 0;
}
