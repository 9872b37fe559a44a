// React Query hooks of the user's settings: one per bridge operation.

import { useMantineColorScheme } from "@mantine/core";
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { BridgeArgs } from "../../../../shared/bridge.ts";
import { callBridge } from "../../bridgeHooks.ts";

const settingsQueryKeys = {
  get: () => ["settings.get"] as const,
};

export const settingsQuery = () =>
  queryOptions({
    queryKey: settingsQueryKeys.get(),
    queryFn: () => callBridge("settings.get", undefined),
  });

export function useSettings() {
  return useQuery(settingsQuery());
}

/** Saves settings; the answer (what main stored) replaces the cached ones, so no refetch is needed. */
export function useUpdateSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (args: BridgeArgs<"settings.update">) => callBridge("settings.update", args),
    onSuccess: (saved) => queryClient.setQueryData(settingsQueryKeys.get(), saved),
  });
}

/**
 * Applies the saved theme to the page: at start (Mantine remembers the last one in localStorage,
 * so the page does not flash first) and whenever the setting changes, also from another window.
 */
export function useAppliedTheme(): void {
  const settings = useSettings();
  const { setColorScheme } = useMantineColorScheme();
  const theme = settings.data?.theme;
  useEffect(() => {
    if (theme !== undefined) setColorScheme(theme);
  }, [theme, setColorScheme]);
}
