// React Query hooks of the keys feature: one per bridge operation.

import {
  infiniteQueryOptions,
  keepPreviousData,
  type QueryKey,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { KeySort } from "../../../../shared/apiKeyRules.ts";
import type { BridgeArgs, KeyQueryDto } from "../../../../shared/bridge.ts";
import { BridgeFailure, callBridge } from "../../bridgeHooks.ts";
import { invalidateKeyLists, NAMED_KEYS_QUERY } from "../../keyListQueries.ts";
import { writeAndClearLater } from "../../pageClipboard.ts";
import { useProfileScope } from "../../profileScope.ts";
import { type KeyPages, withKeyChanged, withKeyEnabled } from "./keyPages.ts";

/** Rows per keys.page call. */
const KEY_PAGE_SIZE = 200;
/** Lists of at most this many loaded pages are fetched again when the window gets the focus. */
const FOCUS_REFETCH_MAX_PAGES = 5;

/** A profile's account: what every key query and action names. */
export interface AccountScope {
  profile: string;
  accountKey: string;
}

/** Every keys.page / keys.count query of an account (whatever its filters) starts with these. */
const keyPagesPrefix = (scope: AccountScope) => ["keys.page", scope] as const;
const keyCountPrefix = (scope: AccountScope) => ["keys.count", scope] as const;

/** The account of the view's profile (see profileScope.ts). */
function useAccountScope(accountKey: string): AccountScope {
  return { profile: useProfileScope().id, accountKey };
}

/**
 * Whether a query key belongs to this profile's account: rows of another account, or of the same
 * account name on another profile, are never shown as a placeholder.
 */
function isOfAccount(queryKey: QueryKey | undefined, scope: AccountScope): boolean {
  const of = queryKey?.[1] as Partial<AccountScope> | undefined;
  return of?.accountKey === scope.accountKey && of.profile === scope.profile;
}

/** The pages of an account's keys for a query and sort: useKeyPages', and the first view's prefetch. */
export const keyPagesQuery = (scope: AccountScope, query: KeyQueryDto, sort?: KeySort) =>
  infiniteQueryOptions({
    queryKey: [...keyPagesPrefix(scope), query, sort ?? null] as const,
    queryFn: ({ pageParam }) =>
      callBridge("keys.page", {
        ...scope,
        query,
        ...(sort && { sort }),
        limit: KEY_PAGE_SIZE,
        ...(pageParam !== null && { cursor: pageParam }),
      }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });

/**
 * An account's keys, narrowed by the service, a page at a time (fetchNextPage for more). While a
 * new query loads, the rows of the previous one of the same account stay (no flash while typing).
 */
export function useKeyPages(accountKey: string, query: KeyQueryDto, sort?: KeySort) {
  const scope = useAccountScope(accountKey);
  return useInfiniteQuery({
    ...keyPagesQuery(scope, query, sort),
    // Keys made elsewhere (the API, another process, a sync) show when the admin comes back; a
    // list scrolled far (many pages, each fetched again in turn) waits for Refresh instead.
    refetchOnWindowFocus: (query) => (query.state.data?.pages.length ?? 0) <= FOCUS_REFETCH_MAX_PAGES,
    placeholderData: (previous, previousQuery) =>
      isOfAccount(previousQuery?.queryKey, scope) ? keepPreviousData(previous) : undefined,
    // The Keys view says why its keys could not be loaded; the page's banner says a profile's failure.
    meta: { errorShownInView: "unless-profile" },
  });
}

/**
 * How many keys of the account the query matches. `enabled: false` while the loaded pages already
 * tell (a list without a next page), or the first page is not in yet: counting a large account
 * must not hold up its first rows.
 */
export function useKeyCount(accountKey: string, query: KeyQueryDto, enabled: boolean) {
  const scope = useAccountScope(accountKey);
  return useQuery({
    queryKey: [...keyCountPrefix(scope), query] as const,
    queryFn: async () => (await callBridge("keys.count", { ...scope, query })).count,
    enabled,
    refetchOnWindowFocus: true,
  });
}

/** `value`, once it has stopped changing for `ms` (the name filter asks the service after a pause). */
export function useSettledValue<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** The key with this publicApiKey (null: none of the account's), asked when `publicApiKey` is set. */
/** Keys whose key id or publicApiKey holds `fragment` (main reads the account's pages), when set. */
export function useKeysByFragment(accountKey: string, fragment: string | null) {
  const scope = useAccountScope(accountKey);
  return useQuery({
    queryKey: ["keys.findByFragment", scope, fragment] as const,
    queryFn: () => callBridge("keys.findByFragment", { ...scope, fragment: fragment as string }),
    enabled: fragment !== null,
  });
}

/** The profile's other account that has this publicApiKey (null: none), asked when `publicApiKey` is set. */
export function useKeyAccountElsewhere(accountKey: string, publicApiKey: string | null) {
  const scope = useAccountScope(accountKey);
  return useQuery({
    queryKey: ["keys.lookupElsewhere", scope, publicApiKey] as const,
    queryFn: () => callBridge("keys.lookupElsewhere", { ...scope, publicApiKey: publicApiKey as string }),
    enabled: publicApiKey !== null,
  });
}

export function useKeyByPublicApiKey(accountKey: string, publicApiKey: string | null) {
  const scope = useAccountScope(accountKey);
  return useQuery({
    queryKey: ["keys.lookup", scope, publicApiKey] as const,
    queryFn: () => callBridge("keys.lookup", { ...scope, publicApiKey: publicApiKey as string }),
    enabled: publicApiKey !== null,
  });
}

/**
 * The key with this id, asked when `key` is set; null when the account has none (a search, not an
 * error: no page-wide banner for a key id typed that is not there).
 */
/**
 * While a key's details are open its usage moves as apps call with it: they ask again every
 * LIVE_USAGE_MS (only while the window is in the foreground).
 */
const LIVE_USAGE_MS = 5_000;

export function useKeyById(accountKey: string, key: string | null, options: { live?: boolean } = {}) {
  const scope = useAccountScope(accountKey);
  return useQuery({
    ...(options.live && { refetchInterval: LIVE_USAGE_MS }),
    queryKey: ["keys.get", scope, key] as const,
    queryFn: async () => {
      try {
        return await callBridge("keys.get", { ...scope, key: key as string });
      } catch (error) {
        if (error instanceof BridgeFailure && error.error.messageId === "NOT_FOUND") return null;
        throw error;
      }
    },
    enabled: key !== null,
  });
}

/** Keys asked for a roll's links (the newest first): a roll's successor is among the newest. */
const ROLL_CANDIDATES_LIMIT = 500;

/**
 * The keys whose name contains `search` (case-insensitive, the list's own `nameContains`), asked
 * when `search` is set: the candidates for a key's roll links (shared/keyRollNames.ts).
 */
export function useRollCandidates(accountKey: string, search: string | null) {
  const scope = useAccountScope(accountKey);
  return useQuery({
    queryKey: [NAMED_KEYS_QUERY, scope, search] as const,
    queryFn: async () =>
      (
        await callBridge("keys.page", {
          ...scope,
          query: { nameContains: search as string },
          sort: { by: "created", desc: true },
          limit: ROLL_CANDIDATES_LIMIT,
        })
      ).keys,
    enabled: search !== null,
  });
}

function useInvalidateKeys() {
  const queryClient = useQueryClient();
  return () => invalidateKeyLists(queryClient);
}

export function useCreateKey() {
  const profile = useProfileScope().id;
  const invalidate = useInvalidateKeys();
  return useMutation({
    mutationFn: (args: BridgeArgs<"keys.create">) => callBridge("keys.create", { ...args, profile }),
    onSuccess: () => invalidate(),
  });
}

export function useCreateTfaKey() {
  const profile = useProfileScope().id;
  const invalidate = useInvalidateKeys();
  return useMutation({
    mutationFn: (args: BridgeArgs<"keys.createTfa">) => callBridge("keys.createTfa", { ...args, profile }),
    onSuccess: () => invalidate(),
  });
}

export function useUpdateKey() {
  const profile = useProfileScope().id;
  const invalidate = useInvalidateKeys();
  return useMutation({
    mutationFn: (args: BridgeArgs<"keys.update">) => callBridge("keys.update", { ...args, profile }),
    onSuccess: () => invalidate(),
  });
}

export function useRevealPublicApiKey() {
  const profile = useProfileScope().id;
  return useMutation({
    mutationFn: (args: BridgeArgs<"keys.revealPublicApiKey">) =>
      callBridge("keys.revealPublicApiKey", { ...args, profile }),
  });
}

/**
 * Copies a key's publicApiKey: main writes the OS clipboard (desktop app), or answers the value for
 * the page to write (browser host). The mutation's data holds only the clear delay, never the value.
 */
export function useCopyPublicApiKey() {
  const profile = useProfileScope().id;
  return useMutation({
    mutationFn: async (
      args: BridgeArgs<"clipboard.copyPublicApiKey">,
    ): Promise<{ clearsAfterMs: number }> => {
      const result = await callBridge("clipboard.copyPublicApiKey", { ...args, profile });
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
 * Enables or disables a key optimistically: the row changes at once in every loaded page of the
 * account and goes back (with the error passed to onError) when the service refuses. The answer
 * replaces the row (or takes it out of a list it no longer matches); loaded pages are not fetched
 * again (an account may have many loaded), the counts are.
 */
export function useSetKeyEnabled(accountKey: string) {
  const queryClient = useQueryClient();
  const scope = useAccountScope(accountKey);
  const pages = { queryKey: keyPagesPrefix(scope) };
  return useMutation({
    mutationFn: (args: { key: string; enabled: boolean }) =>
      callBridge("keys.setEnabled", { ...scope, ...args }),
    onMutate: async ({ key, enabled }) => {
      await queryClient.cancelQueries(pages);
      const previous = queryClient.getQueriesData<KeyPages>(pages);
      queryClient.setQueriesData<KeyPages>(pages, (data) => withKeyEnabled(data, key, enabled));
      return { previous };
    },
    onSuccess: (changed) => {
      for (const [queryKey] of queryClient.getQueriesData<KeyPages>(pages)) {
        const query = (queryKey[2] ?? {}) as KeyQueryDto;
        queryClient.setQueryData<KeyPages>(queryKey, (data) => withKeyChanged(data, changed, query));
      }
    },
    onError: (_error, _args, context) => {
      for (const [queryKey, data] of context?.previous ?? []) queryClient.setQueryData(queryKey, data);
      void queryClient.invalidateQueries(pages);
    },
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: keyCountPrefix(scope) }),
        queryClient.invalidateQueries({ queryKey: ["keys.history", scope] }),
      ]),
  });
}

/**
 * A key's audit history (newest first) while `key` is set; `{kept: false}` when the profile's
 * service keeps none (a state the panel shows, not an error).
 */
export function useKeyHistory(accountKey: string, key: string | null) {
  const scope = useAccountScope(accountKey);
  return useQuery({
    queryKey: ["keys.history", scope, key] as const,
    queryFn: () => callBridge("keys.history", { ...scope, key: key as string }),
    enabled: key !== null,
  });
}

/**
 * A key's calls per hour (48 hours) and per UTC day (30 days) while `key` is set; `{recorded:
 * false}` when the profile's service records no usage (a state the chart shows, not an error).
 */
export function useKeyUsageSeries(accountKey: string, key: string | null) {
  const scope = useAccountScope(accountKey);
  return useQuery({
    refetchInterval: LIVE_USAGE_MS,
    queryKey: ["keys.usageSeries", scope, key] as const,
    queryFn: () => callBridge("keys.usageSeries", { ...scope, key: key as string }),
    enabled: key !== null,
  });
}

/** Rolls a key (successor + shortened old key); the answer holds the successor's publicApiKey once. */
export function useRollKey() {
  const profile = useProfileScope().id;
  const invalidate = useInvalidateKeys();
  return useMutation({
    mutationFn: (args: BridgeArgs<"keys.roll">) => callBridge("keys.roll", { ...args, profile }),
    onSuccess: () => invalidate(),
  });
}

/** The second half of a roll again, after the old key could not be shortened. */
export function useRetireKey() {
  const profile = useProfileScope().id;
  const invalidate = useInvalidateKeys();
  return useMutation({
    mutationFn: (args: BridgeArgs<"keys.retire">) => callBridge("keys.retire", { ...args, profile }),
    onSuccess: () => invalidate(),
  });
}

/** Enables or disables many keys in main; the lists are fetched again afterwards. */
export function useBulkSetEnabled() {
  const profile = useProfileScope().id;
  const invalidate = useInvalidateKeys();
  return useMutation({
    mutationFn: (args: BridgeArgs<"keys.bulkSetEnabled">) =>
      callBridge("keys.bulkSetEnabled", { ...args, profile }),
    onSettled: () => invalidate(),
  });
}

/** Exports the keys in view; the file is made (and saved, or kept for one download) in main. */
export function useExportKeys() {
  const profile = useProfileScope().id;
  return useMutation({
    mutationFn: (args: BridgeArgs<"keys.export">) => callBridge("keys.export", { ...args, profile }),
  });
}
