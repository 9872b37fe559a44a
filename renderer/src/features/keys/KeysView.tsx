import { Alert, Button, Center, Group, Loader, Stack, Text, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useQueryClient } from "@tanstack/react-query";
import {
  type Dispatch,
  type SetStateAction,
  useCallback,
  useDeferredValue,
  useEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import { namedAccount } from "../../../../shared/accountNamed.ts";
import type { KeySort } from "../../../../shared/apiKeyRules.ts";
import type { ApiKeyView, RevealedApiKey } from "../../../../shared/bridge.ts";
import { errorText } from "../../bridgeHooks.ts";
import { isProfileFailure } from "../../FailingQueriesBanner.tsx";
import { invalidateKeyLists } from "../../keyListQueries.ts";
import { OnceOpened } from "../../OnceOpened.tsx";
import { useProfileScope } from "../../profileScope.ts";
import { useActingOn } from "../accounts/ActingOn.tsx";
import { useAccounts } from "../accounts/accountHooks.ts";
import { useSyncKeyStates } from "../sync/syncHooks.ts";
import { notFinalWhy, type SyncMarks, syncedTo } from "../sync/syncState.ts";
import { useBulkActions } from "./BulkActions.tsx";
import { copyNotice } from "./CopyPublicApiKey.tsx";
import { ExportKeysDialog } from "./ExportKeysDialog.tsx";
import { KeyDetails } from "./KeyDetails.tsx";
import { CreateKeyDialog, DisableConfirmDialog, EditKeyDialog, NewKeyDialog } from "./KeyDialogs.tsx";
import { KeyFilterBar, sortValue } from "./KeyFilterBar.tsx";
import { KeyTable } from "./KeyTable.tsx";
import {
  useCopyPublicApiKey,
  useCreateTfaKey,
  useKeyCount,
  useKeyPages,
  useSetKeyEnabled,
  useSettledValue,
} from "./keyHooks.ts";
import { countLine, isFiltered, keyQueryOf, rowsOf, withJustCreated } from "./keyPages.ts";
import { searchRows } from "./keySearch.ts";
import { filterKeys, type KeyFilters } from "./keyState.ts";
import { RollKeyDialog } from "./RollKeyDialog.tsx";
import { SearchMatches, useSearchMatches } from "./SearchMatch.tsx";
import { TfaKeyDialog } from "./TfaKeyDialog.tsx";

/** The name filter goes to the service once typing pauses this long (the rows at hand narrow at once). */
const NAME_SETTLE_MS = 150;

function useKeyActions(accountKey: string, syncMarks: SyncMarks) {
  const setEnabled = useSetKeyEnabled(accountKey);
  // The key to confirm a toggle of: every disable; an enable only where it reaches a remote.
  const [confirming, setConfirming] = useState<{ key: ApiKeyView; enabled: boolean } | null>(null);
  const remote = confirming ? syncedTo(syncMarks.get(confirming.key.key)) : null;
  const toggle = (key: ApiKeyView, enabled: boolean) =>
    setEnabled.mutate(
      { key: key.key, enabled },
      {
        onError: (error) =>
          notifications.show({
            color: "red",
            title: `Could not ${enabled ? "enable" : "disable"} “${key.name}”`,
            message: `${errorText(error)} The key is back as it was.`,
          }),
      },
    );
  return {
    request: (key: ApiKeyView, enabled: boolean) =>
      enabled && !syncedTo(syncMarks.get(key.key)) ? toggle(key, true) : setConfirming({ key, enabled }),
    confirmDialog: (
      <OnceOpened opened={confirming !== null}>
        <DisableConfirmDialog
          name={confirming?.key.name ?? ""}
          accountKey={accountKey}
          opened={confirming !== null}
          enable={confirming?.enabled ?? false}
          syncedTo={remote}
          onCancel={() => setConfirming(null)}
          onConfirm={() => {
            if (confirming) toggle(confirming.key, confirming.enabled);
            setConfirming(null);
          }}
        />
      </OnceOpened>
    ),
  };
}

/** The account in view, in words: its username, and whether it is a sub-account. */
function useAccountName(accountKey: string): string | null {
  const accounts = useAccounts();
  const found = accounts.data?.find(namedAccount(accountKey));
  if (!found) return null;
  return found.parentAccountKey === null ? found.username : `${found.username} (sub-account)`;
}

export function KeysView(props: {
  accountKey: string;
  /** The filters, search and sort: kept by the App, so that they survive a visit to another tab. */
  filters: KeyFilters;
  onFiltersChange: Dispatch<SetStateAction<KeyFilters>>;
  sort: KeySort;
  onSortChange: Dispatch<SetStateAction<KeySort>>;
  createOpen: boolean;
  onCreateOpenChange(open: boolean): void;
}) {
  const queryClient = useQueryClient();
  const createTfa = useCreateTfaKey();
  const copy = useCopyPublicApiKey();
  const where = useActingOn(props.accountKey);
  const profile = useProfileScope();
  const syncMarks = useSyncKeyStates(props.accountKey);
  const actions = useKeyActions(props.accountKey, syncMarks);
  const accountName = useAccountName(props.accountKey);
  const { filters, onFiltersChange: setFilters } = props;
  const deferredFilters = useDeferredValue(filters);
  // The service is asked once typing pauses; state and permission changes go at once.
  const settledName = useSettledValue(filters.name, NAME_SETTLE_MS);
  const query = useMemo(
    () =>
      keyQueryOf({
        state: filters.state,
        permission: filters.permission,
        name: settledName,
        ...(filters.unusedForDays !== undefined && { unusedForDays: filters.unusedForDays }),
      }),
    [filters.state, filters.permission, filters.unusedForDays, settledName],
  );
  const filtered = isFiltered(query);
  const { sort, onSortChange: setSort } = props;
  // Creation order ascending is the service's own: asked without a sort, as before.
  const keys = useKeyPages(props.accountKey, query, sortValue(sort) === "created" ? undefined : sort);
  const loaded = keys.data;
  const placeholder = keys.isPlaceholderData;
  // Until the service has answered the filters as they are (typing, or a new query on its way),
  // the rows at hand are narrowed here by the same rules, so a keystroke shows only matches at once.
  const current = JSON.stringify(keyQueryOf(deferredFilters)) === JSON.stringify(query) && !placeholder;
  const hasMore = current && keys.hasNextPage;
  const total = useKeyCount(props.accountKey, {}, filtered || hasMore);
  const matching = useKeyCount(props.accountKey, query, filtered && hasMore);
  const [editing, setEditing] = useState<ApiKeyView | null>(null);
  const [details, setDetails] = useState<ApiKeyView | null>(null);
  const [created, setCreated] = useState<RevealedApiKey | null>(null);
  /** The TFA key's "Create and copy" in a linked account: copied once the remote has it. */
  const [copyWhenPushed, setCopyWhenPushed] = useState(false);
  const link =
    syncMarks.remote && syncMarks.linkId ? { linkId: syncMarks.linkId, remote: syncMarks.remote } : null;
  const [highlighted, setHighlighted] = useState<string | null>(null);
  /** The key just created here: on top of the rows until the view changes, if no loaded page has it. */
  const [justCreated, setJustCreated] = useState<ApiKeyView | null>(null);
  const [tfaOpen, setTfaOpen] = useState(false);
  const [rolling, setRolling] = useState<ApiKeyView | null>(null);
  const [exportOpen, setExportOpen] = useState(false);
  const newKeyButton = useRef<HTMLButtonElement>(null);
  const shown = useMemo(() => {
    const rows = rowsOf(loaded);
    return current ? rows : filterKeys(rows, deferredFilters);
  }, [loaded, current, deferredFilters]);
  const { fetchNextPage } = keys;
  const loadMore = useCallback(() => void fetchNextPage(), [fetchNextPage]);
  const totalCount = filtered ? total.data : current && !keys.hasNextPage ? shown.length : total.data;
  /** Keys the filters match in the account: the rows themselves once every page is loaded. */
  const matchingCount = filtered ? (current && !keys.hasNextPage ? shown.length : matching.data) : totalCount;
  const accountEmpty =
    loaded !== undefined && current && shown.length === 0 && (!filtered || total.data === 0);
  // A key id, publicApiKey or hint finds its key whatever the name filter says.
  const matches = useSearchMatches(props.accountKey, settledName, shown);
  /** The search's key id, publicApiKey or hint found keys (or said none has it) above the table. */
  const foundAbove = matches.shown && (matches.target.kind !== "name" || matches.found.length > 0);
  const search = searchRows(matches.target.kind, matches, shown);
  const visible = search.rows;
  const tableRows = withJustCreated(visible, search.narrowed ? null : justCreated);
  // Another filter, search or sort is another view: the key made here goes back to its place.
  const viewKey = `${JSON.stringify(keyQueryOf(filters))} ${sortValue(sort)}`;
  // biome-ignore lint/correctness/useExhaustiveDependencies: viewKey is the trigger, not an input.
  useEffect(() => setJustCreated(null), [viewKey]);
  const bulk = useBulkActions({
    accountKey: props.accountKey,
    accountName: accountName ?? props.accountKey,
    query,
    filterScope: `${JSON.stringify(keyQueryOf(filters))} ${matches.target.kind}`,
    rows: visible,
    // Rows narrowed to what a search found: "select all matching" is those rows, not the filter's.
    matching: search.narrowed ? visible.length : matchingCount,
    syncMarks,
  });
  // The details panel shows the key as the lists have it now (after a toggle or an edit).
  const detailsKey = details && (shown.find((key) => key.key === details.key) ?? details);

  const quickTfa = (name: string) =>
    createTfa.mutate(
      { accountKey: props.accountKey, name },
      {
        onSuccess: (key) => {
          setTfaOpen(false);
          createTfa.reset();
          setCreated(key);
          setHighlighted(key.key);
          // In a linked account the value answered here changes when the key reaches the remote:
          // the dialog copies the final one (PushedPublicApiKey).
          setCopyWhenPushed(link !== null);
          if (!link) copyNotice(copy, props.accountKey, key.key, key.name, where);
        },
      },
    );

  return (
    <Stack gap="sm">
      {/* Title and actions on one line down to 800 px: rows are what a short window needs room for. */}
      <Group justify="space-between" gap="xs">
        <Title order={2} size="h3" data-testid="keys-heading">
          API keys{accountName ? ` of ${accountName}` : ""}
        </Title>
        <Group gap="xs">
          <Button
            size="sm"
            variant="default"
            onClick={() => void invalidateKeyLists(queryClient)}
            loading={keys.isRefetching && !keys.isFetchingNextPage}
          >
            Refresh
          </Button>
          <Button size="sm" variant="default" onClick={() => setExportOpen(true)}>
            Export…
          </Button>
          <Button size="sm" variant="light" color="grape" onClick={() => setTfaOpen(true)}>
            New TFA key + copy
          </Button>
          <Button
            size="sm"
            ref={newKeyButton}
            onClick={() => props.onCreateOpenChange(true)}
            aria-keyshortcuts="n"
          >
            New key
          </Button>
        </Group>
      </Group>
      <KeyFilterBar filters={filters} onFiltersChange={setFilters} sort={sort} onSortChange={setSort} />
      {foundAbove && (
        <SearchMatches
          kind={matches.target.kind === "name" ? "publicApiKey" : matches.target.kind}
          found={matches.found}
          searched={matches.searched}
          elsewhere={matches.elsewhere}
          onDetails={setDetails}
        />
      )}
      {keys.isError && loaded !== undefined && (
        // Rows kept from an earlier answer while the service fails now: said, with their time, so
        // that they are not taken for the service's present state.
        <Alert color="yellow" variant="light" data-testid="keys-stale" role="status">
          This list is as {profile.name} answered at {new Date(keys.dataUpdatedAt).toLocaleTimeString()}; it
          does not answer now, so they may be out of date, and changes wait until it answers.
        </Alert>
      )}
      {keys.isPending ? (
        <Center h={200} aria-busy="true">
          <Stack align="center" gap="xs">
            <Loader aria-label="Loading keys" />
            <Text size="sm" data-testid="keys-loading">
              Loading the keys of {profile.name}…
            </Text>
          </Stack>
        </Center>
      ) : keys.isError && loaded === undefined && isProfileFailure(keys.error) ? (
        // The page's banner says it, with what fixes it (Retry, Edit profile): not twice.
        <Center h={120}>
          <Text size="sm" c="dimmed" data-testid="keys-not-loaded">
            No keys to show.
          </Text>
        </Center>
      ) : keys.isError && loaded === undefined ? (
        <Alert color="red" title="The keys could not be loaded">
          {errorText(keys.error)}
        </Alert>
      ) : accountEmpty ? (
        <Center h={200} data-testid="key-list-empty">
          <Stack align="center" gap="xs">
            <Text>No API keys yet.</Text>
            <Button variant="light" onClick={() => props.onCreateOpenChange(true)}>
              Create the first key
            </Button>
          </Stack>
        </Center>
      ) : (
        <>
          {bulk.bar}
          <Text size="sm" c="dimmed" aria-live="polite" data-testid="key-count">
            {countLine({
              filtered: filtered || search.narrowed,
              rows: visible.length,
              loadedAll: search.narrowed || (current && !keys.hasNextPage),
              total: totalCount,
              matching: current ? matching.data : undefined,
            })}
          </Text>
          {tableRows.length === 0 && !current && !search.narrowed ? (
            <Center h={120} aria-busy="true">
              <Loader size="sm" aria-label="Loading keys" />
            </Center>
          ) : tableRows.length === 0 && (foundAbove || search.narrowed) ? null : tableRows.length === 0 ? (
            <Center h={120} data-testid="key-list-no-match">
              <Text>No key matches the filters.</Text>
            </Center>
          ) : (
            <KeyTable
              keys={tableRows}
              total={
                search.narrowed
                  ? visible.length
                  : !current
                    ? undefined
                    : filtered
                      ? matching.data
                      : totalCount
              }
              hasMore={hasMore && !search.narrowed}
              loadingMore={keys.isFetchingNextPage}
              loadMoreFailed={keys.isFetchNextPageError}
              onLoadMore={loadMore}
              accountKey={props.accountKey}
              syncMarks={syncMarks}
              highlighted={highlighted}
              sort={sort}
              onSort={setSort}
              viewOf={viewKey}
              onDetails={setDetails}
              onEdit={setEditing}
              onToggle={actions.request}
              selection={bulk.table}
            />
          )}
        </>
      )}
      {actions.confirmDialog}
      {bulk.dialogs}
      <OnceOpened opened={rolling !== null}>
        <RollKeyDialog
          apiKey={rolling}
          accountKey={props.accountKey}
          syncedTo={rolling && syncedTo(syncMarks.get(rolling.key))}
          onClose={() => setRolling(null)}
        />
      </OnceOpened>
      <OnceOpened opened={exportOpen}>
        <ExportKeysDialog
          opened={exportOpen}
          accountKey={props.accountKey}
          accountName={accountName ?? props.accountKey}
          query={query}
          sort={sortValue(sort) === "created" ? undefined : sort}
          // Unknown (not "0 keys") while the list cannot be read: an unreachable service is not an empty account.
          count={keys.isError ? undefined : matchingCount}
          onClose={() => setExportOpen(false)}
        />
      </OnceOpened>
      <OnceOpened opened={props.createOpen}>
        <CreateKeyDialog
          opened={props.createOpen}
          accountKey={props.accountKey}
          onClose={() => props.onCreateOpenChange(false)}
          onCreated={(key) => {
            props.onCreateOpenChange(false);
            setCopyWhenPushed(false);
            setCreated(key);
            setHighlighted(key.key);
            const { publicApiKey: _secret, ...view } = key;
            setJustCreated(view);
          }}
        />
      </OnceOpened>
      <OnceOpened opened={tfaOpen}>
        <TfaKeyDialog
          opened={tfaOpen}
          accountKey={props.accountKey}
          syncedTo={link?.remote ?? null}
          pending={createTfa.isPending}
          error={createTfa.error ? errorText(createTfa.error) : null}
          onClose={() => {
            setTfaOpen(false);
            createTfa.reset();
          }}
          onCreate={quickTfa}
        />
      </OnceOpened>
      <OnceOpened opened={created !== null}>
        <NewKeyDialog
          apiKey={created}
          accountKey={props.accountKey}
          linked={link && { ...link, copyWhenPushed }}
          onClose={() => {
            setCreated(null);
            // The dialog opened from another dialog: focus goes back to where keys are created.
            requestAnimationFrame(() => newKeyButton.current?.focus());
          }}
        />
      </OnceOpened>
      <OnceOpened opened={editing !== null}>
        <EditKeyDialog
          apiKey={editing}
          accountKey={props.accountKey}
          syncedTo={editing && syncedTo(syncMarks.get(editing.key))}
          onClose={() => setEditing(null)}
        />
      </OnceOpened>
      <OnceOpened opened={detailsKey !== null}>
        <KeyDetails
          apiKey={detailsKey}
          accountKey={props.accountKey}
          onClose={() => setDetails(null)}
          onEdit={(key) => {
            setDetails(null);
            setEditing(key);
          }}
          onRoll={(key) => {
            setDetails(null);
            setRolling(key);
          }}
          onDetails={setDetails}
          onToggle={actions.request}
          notFinal={detailsKey && notFinalWhy(syncMarks.get(detailsKey.key))}
        />
      </OnceOpened>
    </Stack>
  );
}
