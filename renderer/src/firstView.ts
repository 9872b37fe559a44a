import type { Query, QueryClient } from "@tanstack/react-query";
import { activeProfileStatusQuery, serviceStatusQuery } from "./bridgeHooks.ts";
import { accountsQuery } from "./features/accounts/accountHooks.ts";
import { keyPagesQuery } from "./features/keys/keyHooks.ts";
import { keyQueryOf } from "./features/keys/keyPages.ts";
import { INITIAL_KEY_FILTERS } from "./features/keys/keyState.ts";
import { profilesQuery } from "./features/profiles/profileHooks.ts";
import { settingsQuery } from "./features/settings/settingsHooks.ts";

/** The account the Keys view shows first: the active profile's own ("_"). */
export const FIRST_ACCOUNT_KEY = "_";

/**
 * How long the first render waits for the first view's data. The bridge answers in a few ms from
 * the embedded service; a remote profile that takes longer gets the page with its loaders instead.
 */
const FIRST_VIEW_WAIT_MS = 300;

/**
 * How long the prefetched answers count as fresh: long enough that the hooks of the first render
 * take them instead of asking each again at once, too short to notice. Only a query's first
 * answer: every later one (Refresh, the window's focus, this app's changes) is stale at once, as
 * React Query's answers are by default.
 */
const FIRST_VIEW_FRESH_MS = 1_000;

const firstAnswerFresh = (query: Query) => (query.state.dataUpdateCount <= 1 ? FIRST_VIEW_FRESH_MS : 0);

/**
 * Asks for what the first view shows (the Keys view's first page, the accounts, the header's
 * status, the theme) while the page is still starting, through the very queries its hooks use,
 * and resolves once all are in or after FIRST_VIEW_WAIT_MS. Rendered after it, the first render
 * has its rows: a large account's first render otherwise drew the shell and its loaders, then
 * everything again when each answer came (on a slow machine 200+ ms before the first row).
 * A failed call is left to its hook, which asks again when it mounts.
 */
export function prefetchFirstView(queryClient: QueryClient): Promise<void> {
  const [status, active, profiles, settings] = [
    serviceStatusQuery(),
    activeProfileStatusQuery(),
    profilesQuery(),
    settingsQuery(),
  ];
  for (const { queryKey } of [status, active, profiles, settings]) {
    queryClient.setQueryDefaults(queryKey, { staleTime: firstAnswerFresh });
  }
  // The first page and the accounts are the active profile's: asked as soon as the profiles say
  // which one that is.
  const ofActiveProfile = async () => {
    const activeProfile = (await queryClient.fetchQuery(profiles)).find((profile) => profile.active);
    if (!activeProfile) return;
    const accounts = accountsQuery(activeProfile.id);
    queryClient.setQueryDefaults(accounts.queryKey, { staleTime: firstAnswerFresh });
    const keyPages = keyPagesQuery(
      { profile: activeProfile.id, accountKey: FIRST_ACCOUNT_KEY },
      keyQueryOf(INITIAL_KEY_FILTERS),
    );
    queryClient.setQueryDefaults(keyPages.queryKey, { staleTime: firstAnswerFresh });
    await Promise.all([queryClient.prefetchInfiniteQuery(keyPages), queryClient.prefetchQuery(accounts)]);
  };
  const all = Promise.all([
    ofActiveProfile().catch(() => undefined),
    queryClient.prefetchQuery(status),
    queryClient.prefetchQuery(active),
    queryClient.prefetchQuery(settings),
  ]);
  return Promise.race([
    all.then(() => undefined),
    new Promise<void>((done) => setTimeout(done, FIRST_VIEW_WAIT_MS)),
  ]);
}
