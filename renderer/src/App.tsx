import { AppShell, Center, Group, Loader, Stack, Tabs, Title } from "@mantine/core";
import { useElementSize, useHotkeys } from "@mantine/hooks";
import { lazy, Suspense, useMemo, useState } from "react";
import type { KeySort } from "../../shared/apiKeyRules.ts";
import { AfterFirstPaint } from "./AfterFirstPaint.tsx";
import { AppHeaderHeightContext } from "./appHeaderHeight.ts";
import { useBridgeEvents, useFollowProfileChanges, useRetryWhenReachable } from "./bridgeHooks.ts";
import { FailingQueriesBanner } from "./FailingQueriesBanner.tsx";
import { AccountSwitcher } from "./features/accounts/AccountSwitcher.tsx";
import { DEFAULT_SORT, NAME_SEARCH_ID } from "./features/keys/KeyFilterBar.tsx";
import { KeysView } from "./features/keys/KeysView.tsx";
import { INITIAL_KEY_FILTERS, type KeyFilters } from "./features/keys/keyState.ts";
import { ExpiryNotifier } from "./features/notifications/ExpiryNotifier.tsx";
import { ProfileSwitcher } from "./features/profiles/ProfileSwitcher.tsx";
import { useActiveProfile, useSwitchingProfile } from "./features/profiles/profileHooks.ts";
import { useAppliedTheme } from "./features/settings/settingsHooks.ts";
import { FIRST_ACCOUNT_KEY } from "./firstView.ts";
import { HeaderStatus } from "./HeaderStatus.tsx";
import { type Navigation, NavigationContext, type View } from "./navigation.ts";
import { ProfileScopeContext, scopeOf } from "./profileScope.ts";

// The Keys view is the first one shown and comes with the page; the others load when first opened,
// so that the first rows of a large account wait for none of their code (nor for the zod schemas
// the settings form checks with).
const ProfilesView = lazy(async () => ({
  default: (await import("./features/profiles/ProfilesView.tsx")).ProfilesView,
}));
const PinInboxView = lazy(async () => ({
  default: (await import("./features/pins/PinInboxView.tsx")).PinInboxView,
}));
const TfaView = lazy(async () => ({ default: (await import("./features/tfa/TfaView.tsx")).TfaView }));
const SyncView = lazy(async () => ({ default: (await import("./features/sync/SyncView.tsx")).SyncView }));
const SettingsView = lazy(async () => ({
  default: (await import("./features/settings/SettingsView.tsx")).SettingsView,
}));

const VIEW_NAMES: Record<View, string> = {
  keys: "Keys",
  profiles: "Profiles",
  pins: "PIN inbox",
  tfa: "2FA apps",
  sync: "Sync",
  settings: "Settings",
};

/** The header's height on one line; at least this much before its content is measured. */
const HEADER_MIN_HEIGHT = 60;
/** Above and below the header's content. */
const HEADER_PADDING_Y = 8;

export function App() {
  useBridgeEvents();
  useFollowProfileChanges();
  useRetryWhenReachable();

  useAppliedTheme();
  const activeProfile = useActiveProfile();
  const switchingProfile = useSwitchingProfile();
  // The list is a new object per refetch; the scope changes only with the profile.
  const [id, name, kind] = [activeProfile?.id, activeProfile?.name, activeProfile?.kind];
  const scope = useMemo(
    () => (id !== undefined && name !== undefined && kind !== undefined ? scopeOf({ id, name, kind }) : null),
    [id, name, kind],
  );
  // The header wraps in narrow windows (and around a long remote address): its height follows its
  // content, so that it never covers the tabs, and one line takes no more room than one line.
  const { ref: headerContent, height: headerContentHeight } = useElementSize();
  const headerHeight = Math.max(HEADER_MIN_HEIGHT, Math.ceil(headerContentHeight) + 2 * HEADER_PADDING_Y + 1);
  const [view, setView] = useState<View>("keys");
  const [accountKey, setAccountKey] = useState(FIRST_ACCOUNT_KEY);
  const [createOpen, setCreateOpen] = useState(false);
  // The Keys view's filters, search and sort outlive the view: back from another tab, they are as left.
  const [keyFilters, setKeyFilters] = useState<KeyFilters>(INITIAL_KEY_FILTERS);
  const [keySort, setKeySort] = useState<KeySort>(DEFAULT_SORT);
  const [syncKey, setSyncKey] = useState<string | undefined>(undefined);
  const [editProfile, setEditProfile] = useState<string | undefined>(undefined);
  const navigation = useMemo<Navigation>(
    () => ({
      open: (next, target) => {
        setSyncKey(target?.syncKey);
        setEditProfile(target?.editProfile);
        setView(next);
      },
      syncKey,
      editProfile,
    }),
    [syncKey, editProfile],
  );

  useHotkeys([
    [
      "/",
      () => {
        setView("keys");
        // After a view switch the field mounts on the next frame.
        const field = document.getElementById(NAME_SEARCH_ID);
        if (field) field.focus();
        else requestAnimationFrame(() => document.getElementById(NAME_SEARCH_ID)?.focus());
      },
    ],
    [
      "n",
      () => {
        setView("keys");
        setCreateOpen(true);
      },
    ],
  ]);

  return (
    <NavigationContext.Provider value={navigation}>
      <ProfileScopeContext.Provider value={scope}>
        <AppHeaderHeightContext.Provider value={headerHeight}>
          <AppShell header={{ height: headerHeight }} padding="md">
            <a href="#main" className="kd-skip-link">
              Skip to content
            </a>
            <AppShell.Header
              px="md"
              py={HEADER_PADDING_Y}
              display="flex"
              // The active profile's colour across the top: Local and each remote are told apart at a glance.
              style={{
                alignItems: "center",
                borderTop: `4px solid var(--mantine-color-${scope?.color ?? "gray"}-6)`,
              }}
              data-testid="app-header"
              data-app-header
            >
              {/* Profile, account, then the service's state: one line from 1280 px, two below (the address is never cut). */}
              <Group
                ref={headerContent}
                w="100%"
                wrap="wrap"
                gap="xs"
                style={{ columnGap: "var(--mantine-spacing-md)" }}
              >
                <Title order={1} size="h3">
                  Keydesk
                </Title>
                {scope && <ProfileSwitcher />}
                {/* Only the Keys and 2FA apps views are of one account; the others (the PIN inbox lists every account's PINs) ignore it. */}
                {scope && (view === "keys" || view === "tfa") && (
                  <AccountSwitcher key={scope.id} accountKey={accountKey} onChange={setAccountKey} />
                )}
                <HeaderStatus />
              </Group>
            </AppShell.Header>
            <AppShell.Main>
              <Stack gap={0}>
                <nav aria-label="Views">
                  <Tabs value={view} onChange={(value) => navigation.open((value ?? "keys") as View)} mb="md">
                    <Tabs.List>
                      <Tabs.Tab value="keys">Keys</Tabs.Tab>
                      <Tabs.Tab value="profiles">Profiles</Tabs.Tab>
                      <Tabs.Tab value="pins">PIN inbox</Tabs.Tab>
                      <Tabs.Tab value="tfa">2FA apps</Tabs.Tab>
                      <Tabs.Tab value="sync">Sync</Tabs.Tab>
                      <Tabs.Tab value="settings">Settings</Tabs.Tab>
                    </Tabs.List>
                  </Tabs>
                </nav>
                <FailingQueriesBanner />
                {/* Mounted anew for each profile: nothing opened on one profile's data acts on another's. */}
                <section id="main" tabIndex={-1} aria-label={VIEW_NAMES[view]} key={scope?.id ?? "none"}>
                  {!scope ? (
                    <Center h={200} aria-busy="true">
                      <Loader aria-label="Loading the profiles" />
                    </Center>
                  ) : switchingProfile ? (
                    <Center h={200} aria-busy="true" data-testid="section-switching">
                      <Loader aria-label="Switching the profile" />
                    </Center>
                  ) : (
                    <>
                      {/* Nothing on the first screen needs it: it asks for its keys after the first rows. */}
                      <AfterFirstPaint>
                        <ExpiryNotifier accountKey={accountKey} />
                      </AfterFirstPaint>
                      {/* Mounted anew for each account too: a dialog, a selection or a message of one account's keys does not act on another's. */}
                      {view === "keys" && (
                        <KeysView
                          key={accountKey}
                          accountKey={accountKey}
                          filters={keyFilters}
                          onFiltersChange={setKeyFilters}
                          sort={keySort}
                          onSortChange={setKeySort}
                          createOpen={createOpen}
                          onCreateOpenChange={setCreateOpen}
                        />
                      )}
                      <Suspense
                        fallback={
                          <Center h={200} aria-busy="true">
                            <Loader aria-label={`Loading ${VIEW_NAMES[view]}`} />
                          </Center>
                        }
                      >
                        {view === "profiles" && <ProfilesView />}
                        {view === "pins" && <PinInboxView />}
                        {view === "tfa" && <TfaView key={accountKey} accountKey={accountKey} />}
                        {view === "sync" && <SyncView onOpenProfiles={() => setView("profiles")} />}
                        {view === "settings" && <SettingsView />}
                      </Suspense>
                    </>
                  )}
                </section>
              </Stack>
            </AppShell.Main>
          </AppShell>
        </AppHeaderHeightContext.Provider>
      </ProfileScopeContext.Provider>
    </NavigationContext.Provider>
  );
}
