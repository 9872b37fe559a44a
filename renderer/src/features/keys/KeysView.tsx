import {
  Alert,
  Button,
  Center,
  Group,
  Loader,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useCallback, useDeferredValue, useMemo, useState } from "react";
import type { ApiKeyView, RevealedApiKey } from "../../../../shared/bridge.ts";
import { errorText } from "../../bridgeHooks.ts";
import {
  CreateKeyDialog,
  copyNotice,
  DisableConfirmDialog,
  EditKeyDialog,
  NewKeyDialog,
} from "./KeyDialogs.tsx";
import { KeyTable } from "./KeyTable.tsx";
import {
  useCopyPublicApiKey,
  useCreateTfaKey,
  useKeyCount,
  useKeyPages,
  useSetKeyEnabled,
  useSettledValue,
} from "./keyHooks.ts";
import { countLine, isFiltered, keyQueryOf, rowsOf } from "./keyPages.ts";
import { filterKeys, type KeyFilters } from "./keyState.ts";
import { LookupField } from "./LookupField.tsx";

export const NAME_SEARCH_ID = "key-name-search";
/** The name filter goes to the service once typing pauses this long (the rows at hand narrow at once). */
const NAME_SETTLE_MS = 150;

function useKeyActions(accountKey: string) {
  const setEnabled = useSetKeyEnabled(accountKey);
  const [confirming, setConfirming] = useState<ApiKeyView | null>(null);
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
    request: (key: ApiKeyView, enabled: boolean) => (enabled ? toggle(key, true) : setConfirming(key)),
    confirmDialog: (
      <DisableConfirmDialog
        name={confirming?.name ?? ""}
        opened={confirming !== null}
        onCancel={() => setConfirming(null)}
        onConfirm={() => {
          if (confirming) toggle(confirming, false);
          setConfirming(null);
        }}
      />
    ),
  };
}

export function KeysView(props: {
  accountKey: string;
  createOpen: boolean;
  onCreateOpenChange(open: boolean): void;
}) {
  const createTfa = useCreateTfaKey();
  const copy = useCopyPublicApiKey();
  const actions = useKeyActions(props.accountKey);
  const [filters, setFilters] = useState<KeyFilters>({ enabled: "all", permission: "any", name: "" });
  const deferredFilters = useDeferredValue(filters);
  // The service is asked once typing pauses; state and permission changes go at once.
  const settledName = useSettledValue(filters.name, NAME_SETTLE_MS);
  const query = useMemo(
    () => keyQueryOf({ enabled: filters.enabled, permission: filters.permission, name: settledName }),
    [filters.enabled, filters.permission, settledName],
  );
  const filtered = isFiltered(query);
  const keys = useKeyPages(props.accountKey, query);
  const loaded = keys.data;
  const placeholder = keys.isPlaceholderData;
  // Until the service has answered the filters as they are (typing, or a new query on its way),
  // the rows at hand are narrowed here by the same rules, so a keystroke shows only matches at once.
  const current = JSON.stringify(keyQueryOf(deferredFilters)) === JSON.stringify(query) && !placeholder;
  const hasMore = current && keys.hasNextPage;
  const total = useKeyCount(props.accountKey, {}, filtered || hasMore);
  const matching = useKeyCount(props.accountKey, query, filtered && hasMore);
  const [editing, setEditing] = useState<ApiKeyView | null>(null);
  const [created, setCreated] = useState<RevealedApiKey | null>(null);
  const shown = useMemo(() => {
    const rows = rowsOf(loaded);
    return current ? rows : filterKeys(rows, deferredFilters);
  }, [loaded, current, deferredFilters]);
  const { fetchNextPage } = keys;
  const loadMore = useCallback(() => void fetchNextPage(), [fetchNextPage]);
  const totalCount = filtered ? total.data : current && !keys.hasNextPage ? shown.length : total.data;
  const accountEmpty =
    loaded !== undefined && current && shown.length === 0 && (!filtered || total.data === 0);

  const quickTfa = () =>
    createTfa.mutate(
      { accountKey: props.accountKey },
      {
        onSuccess: (key) => {
          setCreated(key);
          copyNotice(copy, props.accountKey, key.key, key.name);
        },
        onError: (error) =>
          notifications.show({
            color: "red",
            title: "Could not create a TFA key",
            message: errorText(error),
          }),
      },
    );

  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Title order={2}>API keys</Title>
        <Group gap="xs">
          <Button variant="light" color="grape" onClick={quickTfa} loading={createTfa.isPending}>
            New TFA key + copy
          </Button>
          <Button onClick={() => props.onCreateOpenChange(true)} aria-keyshortcuts="n">
            New key
          </Button>
        </Group>
      </Group>
      <Group align="flex-end" gap="sm" role="search" aria-label="Filter keys">
        <TextInput
          id={NAME_SEARCH_ID}
          label="Name"
          placeholder="Search by name (press /)"
          aria-keyshortcuts="/"
          value={filters.name}
          onChange={(event) => {
            const name = event.currentTarget.value;
            setFilters((current) => ({ ...current, name }));
          }}
          style={{ flex: 1, minWidth: 180 }}
        />
        <Stack gap={2}>
          <Text size="sm" fw={500} id="state-filter-label">
            State
          </Text>
          <SegmentedControl
            aria-labelledby="state-filter-label"
            value={filters.enabled}
            onChange={(value) =>
              setFilters((current) => ({ ...current, enabled: value as KeyFilters["enabled"] }))
            }
            data={[
              { value: "all", label: "All" },
              { value: "enabled", label: "Enabled" },
              { value: "disabled", label: "Disabled" },
            ]}
          />
        </Stack>
        <Select
          label="Permission"
          w={140}
          allowDeselect={false}
          value={filters.permission}
          onChange={(value) =>
            setFilters((current) => ({
              ...current,
              permission: (value ?? "any") as KeyFilters["permission"],
            }))
          }
          data={[
            { value: "any", label: "Any" },
            { value: "ALL", label: "ALL" },
            { value: "TFA", label: "TFA" },
          ]}
        />
      </Group>
      <LookupField accountKey={props.accountKey} onOpen={setEditing} />
      {keys.isPending ? (
        <Center h={200} aria-busy="true">
          <Loader aria-label="Loading keys" />
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
          <Text size="sm" c="dimmed" aria-live="polite" data-testid="key-count">
            {countLine({
              filtered,
              rows: shown.length,
              loadedAll: current && !keys.hasNextPage,
              total: totalCount,
              matching: current ? matching.data : undefined,
            })}
          </Text>
          {shown.length === 0 && !current ? (
            <Center h={120} aria-busy="true">
              <Loader size="sm" aria-label="Loading keys" />
            </Center>
          ) : shown.length === 0 ? (
            <Center h={120} data-testid="key-list-no-match">
              <Text>No key matches the filters.</Text>
            </Center>
          ) : (
            <KeyTable
              keys={shown}
              total={!current ? undefined : filtered ? matching.data : totalCount}
              hasMore={hasMore}
              loadingMore={keys.isFetchingNextPage}
              loadMoreFailed={keys.isFetchNextPageError}
              onLoadMore={loadMore}
              accountKey={props.accountKey}
              onEdit={setEditing}
              onToggle={actions.request}
            />
          )}
        </>
      )}
      {actions.confirmDialog}
      <CreateKeyDialog
        opened={props.createOpen}
        accountKey={props.accountKey}
        onClose={() => props.onCreateOpenChange(false)}
        onCreated={(key) => {
          props.onCreateOpenChange(false);
          setCreated(key);
        }}
      />
      <NewKeyDialog apiKey={created} accountKey={props.accountKey} onClose={() => setCreated(null)} />
      <EditKeyDialog apiKey={editing} accountKey={props.accountKey} onClose={() => setEditing(null)} />
    </Stack>
  );
}
