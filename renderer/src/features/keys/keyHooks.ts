// React Query hooks of the keys feature: one per bridge operation.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ApiKeyView, BridgeArgs } from "../../../../shared/bridge.ts";
import { callBridge } from "../../bridgeHooks.ts";
import { writeAndClearLater } from "../../pageClipboard.ts";

/** Every keys.list query of an account (whatever its filters) starts with this. */
const accountKeysPrefix = (accountKey: string) => ["keys.list", { accountKey }] as const;

/** All keys of an account; the view filters them itself so that typing stays instant. */
export function useAccountKeys(accountKey: string) {
  return useQuery({
    queryKey: accountKeysPrefix(accountKey),
    queryFn: () => callBridge("keys.list", { accountKey }),
  });
}

export function useLookupKey() {
  return useMutation({
    mutationFn: (args: BridgeArgs<"keys.lookup">) => callBridge("keys.lookup", args),
  });
}

function useInvalidateKeys() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: ["keys.list"] });
}

export function useCreateKey() {
  const invalidate = useInvalidateKeys();
  return useMutation({
    mutationFn: (args: BridgeArgs<"keys.create">) => callBridge("keys.create", args),
    onSuccess: () => invalidate(),
  });
}

export function useCreateTfaKey() {
  const invalidate = useInvalidateKeys();
  return useMutation({
    mutationFn: (args: BridgeArgs<"keys.createTfa">) => callBridge("keys.createTfa", args),
    onSuccess: () => invalidate(),
  });
}

export function useUpdateKey() {
  const invalidate = useInvalidateKeys();
  return useMutation({
    mutationFn: (args: BridgeArgs<"keys.update">) => callBridge("keys.update", args),
    onSuccess: () => invalidate(),
  });
}

export function useRevealPublicApiKey() {
  return useMutation({
    mutationFn: (args: BridgeArgs<"keys.revealPublicApiKey">) => callBridge("keys.revealPublicApiKey", args),
  });
}

/**
 * Copies a key's publicApiKey: main writes the OS clipboard (desktop app), or answers the value for
 * the page to write (browser host). The mutation's data holds only the clear delay, never the value.
 */
export function useCopyPublicApiKey() {
  return useMutation({
    mutationFn: async (
      args: BridgeArgs<"clipboard.copyPublicApiKey">,
    ): Promise<{ clearsAfterMs: number }> => {
      const result = await callBridge("clipboard.copyPublicApiKey", args);
      if (result.writtenBy === "page") {
        try {
          await writeAndClearLater(result.publicApiKey, result.clearsAfterMs);
        } catch (error) {
          throw new Error(
            `the browser did not let the page write the clipboard: ${(error as Error).message}`,
          );
        }
      }
      return { clearsAfterMs: result.clearsAfterMs };
    },
  });
}

/**
 * Enables or disables a key optimistically: the row changes at once and goes back (with the
 * error passed to onError) when the service refuses.
 */
export function useSetKeyEnabled(accountKey: string) {
  const queryClient = useQueryClient();
  const queryKey = accountKeysPrefix(accountKey);
  return useMutation({
    mutationFn: (args: { key: string; enabled: boolean }) =>
      callBridge("keys.setEnabled", { accountKey, ...args }),
    onMutate: async ({ key, enabled }) => {
      await queryClient.cancelQueries({ queryKey });
      const previous = queryClient.getQueryData<ApiKeyView[]>(queryKey);
      queryClient.setQueryData<ApiKeyView[]>(queryKey, (keys) =>
        keys?.map((each) => (each.key === key ? { ...each, enabled } : each)),
      );
      return { previous };
    },
    onError: (_error, _args, context) => {
      if (context?.previous) queryClient.setQueryData(queryKey, context.previous);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey }),
  });
}
