import { Badge, Button, Code, Group, Loader, Switch, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useCallback, useEffect, useRef, useState } from "react";
import type { ApiKeyView } from "../../../../shared/bridge.ts";
import type { SyncKeyState } from "../../../../shared/sync.ts";
import { errorText } from "../../bridgeHooks.ts";
import { SyncKeyBadge } from "../sync/SyncKeyBadge.tsx";
import { useSyncKeyStates } from "../sync/syncHooks.ts";
import { CopyButton, copyNotice } from "./KeyDialogs.tsx";
import { useCopyPublicApiKey, useRevealPublicApiKey } from "./keyHooks.ts";
import { ipSummary, KEY_STATE_LABELS, type KeyState, keyState } from "./keyState.ts";

const ROW_HEIGHT = 48;
/** The next page is asked for when the last rendered row is this close to the last loaded one. */
const FETCH_AHEAD_ROWS = 60;
const COLUMNS = "minmax(160px,2fr) 100px 140px minmax(120px,1.2fr) 290px minmax(130px,1fr) 250px";
const STATE_COLORS: Record<KeyState, string> = {
  enabled: "green",
  disabled: "gray",
  "not-yet-valid": "yellow",
  expired: "red",
};

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
          <SyncKeyBadge state={props.syncState} keyId={key.key} />
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

export function KeyTable(props: {
  keys: ApiKeyView[];
  /** How many rows the list has in all, when counted (for assistive technology). */
  total: number | undefined;
  /** More pages after the loaded rows: a loading row follows them, and nearing it loads the next. */
  hasMore: boolean;
  loadingMore: boolean;
  /** The last page asked for failed: the loading row offers to try again instead of asking by itself. */
  loadMoreFailed: boolean;
  onLoadMore(): void;
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
    count: props.keys.length + (props.hasMore ? 1 : 0),
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });
  const items = virtualizer.getVirtualItems();
  const lastShown = items.at(-1)?.index ?? -1;
  const { hasMore, loadingMore, loadMoreFailed, onLoadMore } = props;
  useEffect(() => {
    if (hasMore && !loadingMore && !loadMoreFailed && lastShown >= props.keys.length - FETCH_AHEAD_ROWS) {
      onLoadMore();
    }
  }, [hasMore, loadingMore, loadMoreFailed, lastShown, props.keys.length, onLoadMore]);
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
          notifications.show({ color: "red", title: "Reveal failed", message: errorText(error) }),
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
        aria-rowcount={
          props.total !== undefined
            ? props.total + 1
            : props.hasMore
              ? -1 /* unknown */
              : props.keys.length + 1
        }
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
          {items.map((item) => {
            const key = props.keys[item.index];
            if (key === undefined) {
              return (
                <tr
                  key="loading-more"
                  data-testid="key-rows-loading"
                  className="kd-row"
                  style={{ height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
                >
                  <td className="kd-cell">
                    {loadMoreFailed && !loadingMore ? (
                      <Group gap="xs" wrap="nowrap">
                        <Text size="sm" c="red">
                          More keys could not be loaded.
                        </Text>
                        <Button size="compact-sm" variant="subtle" onClick={onLoadMore}>
                          Try again
                        </Button>
                      </Group>
                    ) : (
                      <Group gap="xs" wrap="nowrap">
                        <Loader size="xs" aria-label="Loading more keys" />
                        <Text size="sm" c="dimmed">
                          Loading more keys…
                        </Text>
                      </Group>
                    )}
                  </td>
                </tr>
              );
            }
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
