// React Query hooks of the Sync view: one per bridge operation, kept live by "sync-changed" events.

import {
  type QueryClient,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";
import { useEffect, useMemo } from "react";
import type { BridgeArgs } from "../../../../shared/bridge.ts";
import type { SyncLinkDto } from "../../../../shared/sync.ts";
import { getBridge } from "../../bridge.ts";
import { callBridge } from "../../bridgeHooks.ts";
import { invalidateKeyLists } from "../../keyListQueries.ts";
import { useActiveProfile, useProfiles } from "../profiles/profileHooks.ts";
import {
  anyRunning,
  linksOfAccount,
  remoteOfLink,
  type SyncMarks,
  staleAfter,
  syncMarksOf,
} from "./syncState.ts";

const syncQueryKeys = {
  links: () => ["sync.links.list"] as const,
  keys: (id: number) => ["sync.keys", id] as const,
  outbox: (id: number) => ["sync.outbox", id] as const,
  localOnly: (id: number) => ["sync.localOnly", id] as const,
  localOnlyMarks: (id: number) => ["sync.localOnly", id, "marks"] as const,
  localAccounts: () => ["sync.localAccounts"] as const,
  remoteAccounts: (profileId: string) => ["sync.remoteAccounts", profileId] as const,
};

/** While the Sync view shows, the links are refreshed: every second during a run, else every 5 s. */
const RUNNING_REFRESH_MS = 1_000;
const IDLE_REFRESH_MS = 5_000;

/** What a new list of links makes stale is refetched: key lists after a run, a link's details on new counts. */
function refreshStale(queryClient: QueryClient, links: SyncLinkDto[]): void {
  const stale = staleAfter(queryClient.getQueryData<SyncLinkDto[]>(syncQueryKeys.links()), links);
  if (stale.keys) void invalidateKeyLists(queryClient);
  if (stale.details) {
    void queryClient.invalidateQueries({ queryKey: ["sync.keys"] });
    void queryClient.invalidateQueries({ queryKey: ["sync.outbox"] });
    // A pull may link a local-only key again (the remote lists its publicApiKey).
    void queryClient.invalidateQueries({ queryKey: ["sync.localOnly"] });
  }
}

/**
 * The embedded service's links. `live` (the Sync view) refreshes them every second during a run and
 * every 5 s otherwise, which also shows the runs the engine starts on its own (interval, reconnect).
 */
export function useSyncLinks(options: { live?: boolean; enabled?: boolean } = {}) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: syncQueryKeys.links(),
    queryFn: async () => {
      const links = await callBridge("sync.links.list", undefined);
      refreshStale(queryClient, links);
      return links;
    },
    enabled: options.enabled ?? true,
    refetchInterval: options.live
      ? (query) => (anyRunning(query.state.data) ? RUNNING_REFRESH_MS : IDLE_REFRESH_MS)
      : false,
  });
}

export function useSyncKeys(id: number) {
  return useQuery({ queryKey: syncQueryKeys.keys(id), queryFn: () => callBridge("sync.keys", { id }) });
}

export function useSyncOutbox(id: number) {
  return useQuery({ queryKey: syncQueryKeys.outbox(id), queryFn: () => callBridge("sync.outbox", { id }) });
}

/** The Local service's accounts (the local side of a link), whichever profile is active. */
export function useLocalAccounts() {
  return useQuery({
    queryKey: syncQueryKeys.localAccounts(),
    queryFn: () => callBridge("sync.localAccounts", undefined),
  });
}

/** A remote profile's own account and sub-accounts (the remote side of a link). */
export function useRemoteAccounts(profileId: string | null) {
  return useQuery({
    queryKey: syncQueryKeys.remoteAccounts(profileId ?? ""),
    queryFn: () => callBridge("sync.remoteAccounts", { profileId: profileId ?? "" }),
    enabled: profileId !== null,
    // The link form says it under the remote account picker (and the link's check says why).
    meta: { errorShownInView: true },
  });
}

/** Applies main's "sync-changed" events (sent after each sync call, and every second of a run it started). */
export function useSyncEvents(): void {
  const queryClient = useQueryClient();
  useEffect(
    () =>
      getBridge().onEvent((event) => {
        if (event.type !== "sync-changed") return;
        refreshStale(queryClient, event.links);
        queryClient.setQueryData(syncQueryKeys.links(), event.links);
      }),
    [queryClient],
  );
}

/**
 * A sync mutation: the links, sync keys and outbox are refetched after it; with `keysChange`
 * the keys lists too (a run may pull keys, a resolve may write a remote value here).
 */
function useSyncMutation<A, R>(call: (args: A) => Promise<R>, options: { keysChange?: boolean } = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: syncQueryKeys.links() }),
        queryClient.invalidateQueries({ queryKey: ["sync.keys"] }),
        queryClient.invalidateQueries({ queryKey: ["sync.outbox"] }),
        queryClient.invalidateQueries({ queryKey: ["sync.localOnly"] }),
        ...(options.keysChange ? [invalidateKeyLists(queryClient)] : []),
      ]),
  });
}

export function useCreateLink() {
  return useSyncMutation((args: BridgeArgs<"sync.links.create">) => callBridge("sync.links.create", args));
}

export function useUpdateLink() {
  return useSyncMutation((args: BridgeArgs<"sync.links.update">) => callBridge("sync.links.update", args));
}

export function useRemoveLink() {
  return useSyncMutation((args: BridgeArgs<"sync.links.remove">) => callBridge("sync.links.remove", args));
}

/** Runs a link now. */
export function useRunLink() {
  return useSyncMutation((args: BridgeArgs<"sync.run">) => callBridge("sync.run", args), {
    keysChange: true,
  });
}

export function useResolveConflict() {
  return useSyncMutation((args: BridgeArgs<"sync.resolve">) => callBridge("sync.resolve", args), {
    keysChange: true,
  });
}

export function useDiscardEntry() {
  return useSyncMutation((args: BridgeArgs<"sync.outbox.discard">) =>
    callBridge("sync.outbox.discard", args),
  );
}

export function useRetryEntry() {
  return useSyncMutation((args: BridgeArgs<"sync.outbox.retry">) => callBridge("sync.outbox.retry", args));
}

/** Keys of a page of the local-only list in the Sync view ("Show more" asks for the next). */
const LOCAL_ONLY_PAGE = 50;

/** The link's local-only keys (made before the link): their count, page after page. */
export function useLocalOnlyKeys(id: number) {
  return useInfiniteQuery({
    queryKey: syncQueryKeys.localOnly(id),
    queryFn: ({ pageParam }) =>
      callBridge("sync.localOnly", {
        id,
        limit: LOCAL_ONLY_PAGE,
        ...(pageParam !== undefined && { cursor: pageParam }),
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

/** Pushes local-only keys (some, or all): their creates are queued and go out at the next run. */
export function usePushLocalOnly() {
  return useSyncMutation(
    (args: BridgeArgs<"sync.localOnly.push">) => callBridge("sync.localOnly.push", args),
    { keysChange: true },
  );
}

/**
 * How many local-only keys the Keys table marks per link: the first ones in creation order. An
 * account linked with more keys than this marks only those (the Sync view lists them all).
 */
const LOCAL_ONLY_MARKS = 1_000;

/**
 * The sync marks of the keys of a local account (state and remote), for the Keys table's badges and
 * the confirmations of changes: none unless the Local profile is active and the account is linked.
 * An account has one link at most (the service keeps one per account).
 */
export function useSyncKeyStates(accountKey: string): SyncMarks {
  const profile = useActiveProfile();
  const local = profile?.kind === "local";
  const links = useSyncLinks({ enabled: local });
  const profiles = useProfiles();
  const accounts = useQuery({
    queryKey: syncQueryKeys.localAccounts(),
    queryFn: () => callBridge("sync.localAccounts", undefined),
    enabled: local && (links.data?.length ?? 0) > 0,
  });
  useSyncEvents();
  const link = local ? linksOfAccount(links.data, accountKey, accounts.data)[0] : undefined;
  const id = link?.id ?? -1;
  const withNews = useQuery({
    queryKey: syncQueryKeys.keys(id),
    queryFn: () => callBridge("sync.keys", { id }),
    enabled: link !== undefined,
  });
  const localOnly = useQuery({
    queryKey: syncQueryKeys.localOnlyMarks(id),
    queryFn: () => callBridge("sync.localOnly", { id, limit: LOCAL_ONLY_MARKS }),
    enabled: link !== undefined,
  });
  const remote = link && remoteOfLink(link, profiles.data ?? []);
  const remoteWords = remote?.full;
  const linkId = link?.id;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the remote's words stand for it
  return useMemo(
    () =>
      syncMarksOf({
        remote,
        ...(linkId !== undefined && { linkId }),
        withNews: withNews.data,
        localOnly: localOnly.data?.keys.map((key) => key.key),
        localOnlyComplete: localOnly.data !== undefined && localOnly.data.nextCursor === null,
      }),
    [remoteWords, linkId, withNews.data, localOnly.data],
  );
}
