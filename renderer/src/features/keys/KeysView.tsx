import {
  Alert,
  Badge,
  Button,
  Center,
  Code,
  Group,
  Loader,
  SegmentedControl,
  Select,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useVirtualizer } from "@tanstack/react-virtual";
import {
  type FormEvent,
  memo,
  useCallback,
  useDeferredValue,
  useEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import type { ApiKeyView, RevealedApiKey } from "../../../../shared/bridge.ts";
import type { SyncKeyState } from "../../../../shared/sync.ts";
import { BridgeFailure } from "../../bridgeHooks.ts";
import { SyncKeyBadge } from "../sync/SyncKeyBadge.tsx";
import { useSyncKeyStates } from "../sync/syncHooks.ts";
import {
  CopyButton,
  CreateKeyDialog,
  copyNotice,
  DisableConfirmDialog,
  EditKeyDialog,
  NewKeyDialog,
} from "./KeyDialogs.tsx";
import {
  useAccountKeys,
  useCopyPublicApiKey,
  useCreateTfaKey,
  useLookupKey,
  useRevealPublicApiKey,
  useSetKeyEnabled,
} from "./keyHooks.ts";
import {
  filterKeys,
  ipSummary,
  KEY_STATE_LABELS,
  type KeyFilters,
  type KeyState,
  keyState,
} from "./keyState.ts";

export const NAME_SEARCH_ID = "key-name-search";
const ROW_HEIGHT = 48;
const COLUMNS = "minmax(160px,2fr) 100px 140px minmax(120px,1.2fr) 290px minmax(130px,1fr) 250px";
const STATE_COLORS: Record<KeyState, string> = {
  enabled: "green",
  disabled: "gray",
  "not-yet-valid": "yellow",
  expired: "red",
};

function message(error: unknown): string {
  return error instanceof BridgeFailure ? error.error.text : String(error);
}

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
            message: `${message(error)} The key is back as it was.`,
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

/** One row; memoized with stable callbacks so that scrolling renders only the rows that appear. */
const KeyRow = memo(function KeyRow(props: {
  apiKey: ApiKeyView;
  now: number;
  revealed: string | undefined;
  copying: boolean;
  onCopy(key: ApiKeyView): void;
  onReveal(key: ApiKeyView): void;
  onEdit(key: ApiKeyView): void;
  onToggle(key: ApiKeyView, enabled: boolean): void;
  syncState?: SyncKeyState | undefined;
}) {
  const key = props.apiKey;
  const state = keyState(key, props.now);
  return (
    <>
      <td className="kd-cell" title={key.name}>
        <Group gap={4} wrap="nowrap">
          <Text size="sm" fw={500} truncate>
            {key.name}
          </Text>
          <SyncKeyBadge state={props.syncState} />
        </Group>
      </td>
      <td className="kd-cell">
        <Group gap={4}>
          {key.permissions.map((permission) => (
            <Badge
              key={permission}
              size="sm"
              variant="filled"
              color={permission === "ALL" ? "blue.9" : "grape.9"}
            >
              {permission}
            </Badge>
          ))}
        </Group>
      </td>
      <td className="kd-cell">
        <Badge size="sm" variant="dot" color={STATE_COLORS[state]} data-testid="key-state">
          {KEY_STATE_LABELS[state]}
        </Badge>
      </td>
      <td className="kd-cell" title={key.allowedIPs?.join(", ") ?? "Any IP"}>
        <Text size="sm" truncate>
          {ipSummary(key.allowedIPs)}
        </Text>
      </td>
      <td className="kd-cell">
        <Code style={{ fontSize: 12 }}>{key.key}</Code>
      </td>
      <td className="kd-cell">
        <Code style={{ fontSize: 12, wordBreak: "break-all" }} data-testid="public-api-key">
          {props.revealed ?? key.publicApiKeyHint}
        </Code>
      </td>
      <td className="kd-cell">
        <Group gap={4} wrap="nowrap">
          <CopyButton name={key.name} loading={props.copying} onCopy={() => props.onCopy(key)} />
          <Button
            size="compact-sm"
            variant="subtle"
            aria-label={`${props.revealed ? "Hide" : "Reveal"} the publicApiKey of ${key.name}`}
            onClick={() => props.onReveal(key)}
          >
            {props.revealed ? "Hide" : "Reveal"}
          </Button>
          <Button
            size="compact-sm"
            variant="subtle"
            onClick={() => props.onEdit(key)}
            aria-label={`Edit ${key.name}`}
          >
            Edit
          </Button>
          <Switch
            size="sm"
            checked={key.enabled}
            aria-label={`${key.name} enabled`}
            onChange={(event) => props.onToggle(key, event.currentTarget.checked)}
          />
        </Group>
      </td>
    </>
  );
});

function KeyTable(props: {
  keys: ApiKeyView[];
  total: number;
  accountKey: string;
  onEdit(key: ApiKeyView): void;
  onToggle(key: ApiKeyView, enabled: boolean): void;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const syncStates = useSyncKeyStates(props.accountKey);
  const copy = useCopyPublicApiKey();
  const reveal = useRevealPublicApiKey();
  const [revealed, setRevealed] = useState<Record<string, string>>({});
  // The time the row states are computed for, refreshed every minute.
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  const virtualizer = useVirtualizer({
    count: props.keys.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });
  const toggleReveal = (key: ApiKeyView) => {
    if (revealed[key.key]) {
      setRevealed(({ [key.key]: _, ...rest }) => rest);
      return;
    }
    reveal.mutate(
      { accountKey: props.accountKey, key: key.key },
      {
        onSuccess: (full) => setRevealed((current) => ({ ...current, [full.key]: full.publicApiKey })),
        onError: (error) =>
          notifications.show({ color: "red", title: "Reveal failed", message: message(error) }),
      },
    );
  };
  // Stable callbacks for the memoized rows; they call the latest handlers.
  const latest = useRef({ props, toggleReveal, copy });
  latest.current = { props, toggleReveal, copy };
  const onCopy = useCallback((key: ApiKeyView) => {
    const { props: current, copy: copier } = latest.current;
    copyNotice(copier, current.accountKey, key.key, key.name);
  }, []);
  const onReveal = useCallback((key: ApiKeyView) => latest.current.toggleReveal(key), []);
  const onEdit = useCallback((key: ApiKeyView) => latest.current.props.onEdit(key), []);
  const onToggle = useCallback(
    (key: ApiKeyView, enabled: boolean) => latest.current.props.onToggle(key, enabled),
    [],
  );
  return (
    <div ref={scrollRef} className="kd-scroll" style={{ height: "calc(100vh - 400px)", minHeight: 240 }}>
      <table
        aria-label="API keys"
        aria-rowcount={props.keys.length + 1}
        data-testid="key-list"
        className="kd-table"
      >
        <thead className="kd-thead">
          <tr aria-rowindex={1} className="kd-row kd-head" style={{ gridTemplateColumns: COLUMNS }}>
            {["Name", "Permissions", "State", "Allowed IPs", "Key id", "publicApiKey", "Actions"].map(
              (name) => (
                <th key={name} scope="col" className="kd-cell">
                  {name}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody className="kd-tbody" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((item) => {
            const key = props.keys[item.index] as ApiKeyView;
            return (
              <tr
                aria-rowindex={item.index + 2}
                key={key.key}
                data-testid="key-row"
                data-key-id={key.key}
                className="kd-row"
                style={{
                  gridTemplateColumns: COLUMNS,
                  height: ROW_HEIGHT,
                  transform: `translateY(${item.start}px)`,
                }}
              >
                <KeyRow
                  apiKey={key}
                  now={now}
                  revealed={revealed[key.key]}
                  copying={copy.isPending && copy.variables?.key === key.key}
                  onCopy={onCopy}
                  onReveal={onReveal}
                  onEdit={onEdit}
                  onToggle={onToggle}
                  syncState={syncStates.get(key.key)}
                />
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function LookupField(props: { accountKey: string; onOpen(key: ApiKeyView): void }) {
  const lookup = useLookupKey();
  const [text, setText] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (text.trim()) lookup.mutate({ accountKey: props.accountKey, publicApiKey: text.trim() });
  };
  const found = lookup.data;
  return (
    <form onSubmit={submit} aria-label="Find a key by its publicApiKey">
      <Group align="flex-end" gap="xs">
        <TextInput
          style={{ flex: 1 }}
          label="Paste a publicApiKey"
          placeholder="The full publicApiKey an application uses"
          value={text}
          onChange={(event) => {
            setText(event.currentTarget.value);
            lookup.reset();
          }}
        />
        <Button type="submit" variant="light" loading={lookup.isPending}>
          Find key
        </Button>
      </Group>
      <div aria-live="polite" data-testid="lookup-result">
        {lookup.isError && (
          <Text size="sm" c="red" mt={4}>
            {message(lookup.error)}
          </Text>
        )}
        {lookup.isSuccess && found === null && (
          <Text size="sm" mt={4}>
            No key of this account has that publicApiKey.
          </Text>
        )}
        {found && (
          <Group gap="xs" mt={4}>
            <Text size="sm">
              It belongs to <strong>{found.name}</strong> (<Code>{found.key}</Code>,{" "}
              {KEY_STATE_LABELS[keyState(found, Date.now())].toLowerCase()}).
            </Text>
            <Button size="compact-sm" variant="subtle" onClick={() => props.onOpen(found)}>
              Open
            </Button>
          </Group>
        )}
      </div>
    </form>
  );
}

export function KeysView(props: {
  accountKey: string;
  createOpen: boolean;
  onCreateOpenChange(open: boolean): void;
}) {
  const keys = useAccountKeys(props.accountKey);
  const createTfa = useCreateTfaKey();
  const copy = useCopyPublicApiKey();
  const actions = useKeyActions(props.accountKey);
  const [filters, setFilters] = useState<KeyFilters>({ enabled: "all", permission: "any", name: "" });
  const deferredFilters = useDeferredValue(filters);
  const [editing, setEditing] = useState<ApiKeyView | null>(null);
  const [created, setCreated] = useState<RevealedApiKey | null>(null);
  const all = keys.data;
  const shown = useMemo(() => (all ? filterKeys(all, deferredFilters) : []), [all, deferredFilters]);

  const quickTfa = () =>
    createTfa.mutate(
      { accountKey: props.accountKey },
      {
        onSuccess: (key) => {
          setCreated(key);
          copyNotice(copy, props.accountKey, key.key, key.name);
        },
        onError: (error) =>
          notifications.show({ color: "red", title: "Could not create a TFA key", message: message(error) }),
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
      ) : keys.isError && all === undefined ? (
        <Alert color="red" title="The keys could not be loaded">
          {message(keys.error)}
        </Alert>
      ) : all && all.length === 0 ? (
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
            {shown.length === all?.length
              ? `${shown.length} ${shown.length === 1 ? "key" : "keys"}`
              : `${shown.length} of ${all?.length ?? 0} keys`}
          </Text>
          {shown.length === 0 ? (
            <Center h={120} data-testid="key-list-no-match">
              <Text>No key matches the filters.</Text>
            </Center>
          ) : (
            <KeyTable
              keys={shown}
              total={all?.length ?? 0}
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
