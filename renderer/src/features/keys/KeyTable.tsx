import "./keyTable.css";
import { Badge, Button, Checkbox, Group, Loader, Switch, Text } from "@mantine/core";
import { useElementSize, useMergedRef } from "@mantine/hooks";
import { useWindowVirtualizer } from "@tanstack/react-virtual";
import { type CSSProperties, memo, useCallback, useEffect, useMemo, useRef } from "react";
import type { KeySort, KeySortField } from "../../../../shared/apiKeyRules.ts";
import type { ApiKeyView } from "../../../../shared/bridge.ts";
import { parseApiDateTime } from "../../../../shared/datetime.ts";
import { useAppHeaderHeight } from "../../appHeaderHeight.ts";
import { useNow } from "../../useNow.ts";
import { WHOLE_BADGE } from "../../wholeBadge.ts";
import { useActingOn } from "../accounts/ActingOn.tsx";
import { SyncKeyBadge } from "../sync/SyncKeyBadge.tsx";
import {
  type KeySyncMark,
  keySyncLook,
  notFinalWhy,
  reachesRemote,
  type SyncMarks,
} from "../sync/syncState.ts";
import { CopyButton, copyNotice } from "./CopyPublicApiKey.tsx";
import { KeyNameButton } from "./KeyNameButton.tsx";
import { type ColumnId, columnsFor } from "./keyColumns.ts";
import { useCopyPublicApiKey } from "./keyHooks.ts";
import {
  expiringSoon,
  ipSummary,
  KEY_STATE_LABELS,
  type KeyState,
  keyState,
  localDateTime,
  relativeTime,
  retiringKey,
  validToText,
} from "./keyState.ts";
import { createdText, lastUsedText } from "./keyUsage.ts";
import { RevealButton } from "./RevealPopover.tsx";
import { usePageTop } from "./usePageTop.ts";

const ROW_HEIGHT = 48;
/** Set on the body while a Mantine dialog locks the page's scroll (react-remove-scroll-bar). */
const SCROLL_LOCK = "data-scroll-locked";
/** The next page is asked for when the last rendered row is this close to the last loaded one. */
const FETCH_AHEAD_ROWS = 60;
export const STATE_COLORS: Record<KeyState, string> = {
  enabled: "green",
  // gray.6 (the default) is a dot one cannot see on the dark table.
  disabled: "gray.5",
  "not-yet-valid": "yellow",
  expired: "red",
};

/** A header that sorts by its column: ascending first, descending on the next click. */
function SortHeader(props: { label: string; by: KeySortField; sort: KeySort; onSort(sort: KeySort): void }) {
  const active = props.sort.by === props.by;
  return (
    <button
      type="button"
      className="kd-keys-sort"
      onClick={() => props.onSort({ by: props.by, desc: active && !props.sort.desc })}
    >
      {props.label}
      <span aria-hidden="true">{active ? (props.sort.desc ? " ▼" : " ▲") : ""}</span>
    </button>
  );
}

interface RowHandlers {
  onCopy(key: ApiKeyView): void;
  onDetails(key: ApiKeyView): void;
  onEdit(key: ApiKeyView): void;
  onToggle(key: ApiKeyView, enabled: boolean): void;
  /** The row's checkbox: `range` when shift was held (select from the last one clicked). */
  onSelect(key: ApiKeyView, selected: boolean, range: boolean): void;
}

/** Which rows are selected (for bulk enable/disable), as KeysView keeps it. */
export interface TableSelection {
  isSelected(key: string): boolean;
  /** The header's checkbox: every loaded row is selected / some are. */
  all: boolean;
  some: boolean;
  onSelect(key: ApiKeyView, selected: boolean, range: boolean): void;
  onSelectLoaded(selected: boolean): void;
}

/** One cell; its whole text as its tooltip, so that whatever the width cuts off can be read. */
function Cell(props: { title: string; children: React.ReactNode }) {
  return (
    <td className="kd-keys-cell" title={props.title}>
      {props.children}
    </td>
  );
}

function cellOf(column: ColumnId, key: ApiKeyView, props: RowProps): React.ReactNode {
  const state = keyState(key, props.now);
  switch (column) {
    case "name": {
      const mark = props.syncMark;
      const sync = keySyncLook(mark?.state);
      const synced = !sync && mark && reachesRemote(mark.state) ? `synced with ${mark.remote.full}` : null;
      return (
        <Cell
          key={column}
          title={sync ? `${key.name} (${sync.label})` : synced ? `${key.name} (${synced})` : key.name}
        >
          <div className="kd-keys-line">
            <Checkbox
              size="xs"
              checked={props.selected}
              onChange={() => {}}
              onClick={(event) => props.onSelect(key, !props.selected, event.shiftKey)}
              aria-label={`Select ${key.name}`}
              data-testid="key-select"
              style={{ flexShrink: 0 }}
            />
            <KeyNameButton name={key.name} onClick={() => props.onDetails(key)} />
            {(sync || synced) && (
              <span style={{ flexShrink: 0 }}>
                <SyncKeyBadge mark={mark} keyId={key.key} />
              </span>
            )}
          </div>
        </Cell>
      );
    }
    case "permissions":
      return (
        <Cell key={column} title={key.permissions.join(", ")}>
          <div className="kd-keys-line kd-keys-line-tight">
            {key.permissions.map((permission) => (
              <Badge
                key={permission}
                size="sm"
                variant="filled"
                color={permission === "ALL" ? "blue.9" : "grape.9"}
                style={{ flexShrink: 0 }}
              >
                {permission}
              </Badge>
            ))}
          </div>
        </Cell>
      );
    case "state":
      return (
        <Cell key={column} title={KEY_STATE_LABELS[state]}>
          {/* The whole state, never "NOT YET VAL…": its words' case, and a width it keeps. */}
          <Badge
            size="sm"
            variant="dot"
            tt="none"
            color={STATE_COLORS[state]}
            data-testid="key-state"
            styles={WHOLE_BADGE}
          >
            {KEY_STATE_LABELS[state]}
          </Badge>
        </Cell>
      );
    case "validTo": {
      const to = key.validTo ? parseApiDateTime(key.validTo) : null;
      const soon = expiringSoon(key, props.now);
      const from = key.validFrom ? parseApiDateTime(key.validFrom) : null;
      // A key not valid yet says when it starts: its State alone ("Not yet valid") does not.
      const text =
        state === "not-yet-valid" && from !== null
          ? `starts ${relativeTime(from, props.now)}`
          : validToText(key, props.now);
      return (
        <Cell
          key={column}
          title={[
            from !== null && state === "not-yet-valid" ? `Starts ${localDateTime(from)}` : "",
            to === null ? "No end" : `Ends ${localDateTime(to)}`,
          ]
            .filter(Boolean)
            .join("; ")}
        >
          <span
            className={soon ? "kd-keys-wrap kd-keys-soon" : "kd-keys-wrap"}
            data-testid="key-valid-to"
            data-expiring-soon={soon}
            data-retiring={retiringKey(key, props.now)}
          >
            {soon ? "⚠ " : ""}
            {text}
          </span>
        </Cell>
      );
    }
    case "lastUsed":
    case "created": {
      const used = column === "lastUsed";
      const { text, title, warning } = used ? lastUsedText(key, props.now) : createdText(key, props.now);
      const known = used ? key.usage !== undefined : typeof key.createdAt === "string";
      return (
        <Cell key={column} title={title}>
          <span
            className={`kd-keys-wrap${known ? "" : " kd-keys-dimmed"}${warning ? " kd-keys-warning" : ""}`}
            data-testid={`key-${used ? "last-used" : "created"}`}
          >
            {text}
          </span>
        </Cell>
      );
    }
    case "hint":
      return (
        <Cell key={column} title={`publicApiKey ${key.publicApiKeyHint} (Reveal shows it whole)`}>
          <span className="kd-keys-mono" data-testid="public-api-key">
            {key.publicApiKeyHint}
          </span>
        </Cell>
      );
    case "keyId":
      return (
        <Cell key={column} title={key.key}>
          <span className="kd-keys-mono">{key.key}</span>
        </Cell>
      );
    case "ips":
      return (
        <Cell key={column} title={key.allowedIPs?.join(", ") ?? "Any IP"}>
          {ipSummary(key.allowedIPs)}
        </Cell>
      );
    case "actions":
      return (
        <td key={column} className="kd-keys-cell" style={{ overflow: "visible" }}>
          <div className="kd-keys-line kd-keys-line-tight kd-keys-actions">
            <CopyButton
              name={key.name}
              loading={props.copying}
              onCopy={() => props.onCopy(key)}
              notFinal={notFinalWhy(props.syncMark)}
            />
            <RevealButton apiKey={key} accountKey={props.accountKey} notFinal={notFinalWhy(props.syncMark)} />
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
          </div>
        </td>
      );
  }
}

interface RowProps extends RowHandlers {
  apiKey: ApiKeyView;
  columns: readonly ColumnId[];
  accountKey: string;
  now: number;
  copying: boolean;
  syncMark?: KeySyncMark | undefined;
  selected: boolean;
}

/** One row; memoized with stable callbacks so that scrolling renders only the rows that appear. */
const KeyRow = memo(function KeyRow(props: RowProps) {
  return <>{props.columns.map((column) => cellOf(column, props.apiKey, props))}</>;
});

export function KeyTable(props: {
  keys: readonly ApiKeyView[];
  /** How many rows the list has in all, when counted (for assistive technology). */
  total: number | undefined;
  /** More pages after the loaded rows: a loading row follows them, and nearing it loads the next. */
  hasMore: boolean;
  loadingMore: boolean;
  /** The last page asked for failed: the loading row offers to try again instead of asking by itself. */
  loadMoreFailed: boolean;
  onLoadMore(): void;
  accountKey: string;
  /** The sync marks of the account's linked keys (empty when it has no link). */
  syncMarks: SyncMarks;
  /** A key to scroll to and mark (one just created). */
  highlighted: string | null;
  sort: KeySort;
  onSort(sort: KeySort): void;
  /** The filters and sort the rows answer, as text: when it changes, the table is back at its top. */
  viewOf: string;
  onDetails(key: ApiKeyView): void;
  onEdit(key: ApiKeyView): void;
  onToggle(key: ApiKeyView, enabled: boolean): void;
  selection: TableSelection;
}) {
  const { ref: sizeRef, width } = useElementSize();
  const tableRef = useRef<HTMLDivElement>(null);
  const mergedRef = useMergedRef(tableRef, sizeRef);
  const bodyRef = useRef<HTMLTableSectionElement>(null);
  // The page is the one scroll container: a wheel over the table scrolls the page, the filters go
  // up under the fixed header and the rows fill the window (a table scrolling in a box of its own
  // left a short window a few rows under the filters). The table's head row sticks under the header.
  const rowsTop = usePageTop(bodyRef);
  const header = useAppHeaderHeight();
  const layout = columnsFor(width || 1024);
  // One array per layout: the memoized rows re-render when the columns change, not on every render.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the template names the columns
  const columnIds = useMemo(() => layout.columns.map((column) => column.id), [layout.template]);
  const copy = useCopyPublicApiKey();
  const where = useActingOn(props.accountKey);
  // The time the row states are computed for, refreshed every minute.
  const now = useNow(60_000);
  const virtualizer = useWindowVirtualizer({
    count: props.keys.length + (props.hasMore ? 1 : 0),
    scrollMargin: rowsTop,
    estimateSize: () => ROW_HEIGHT,
    overscan: 4,
  });
  const items = virtualizer.getVirtualItems();
  const lastShown = items.at(-1)?.index ?? -1;
  const { hasMore, loadingMore, loadMoreFailed, onLoadMore, highlighted, keys } = props;
  useEffect(() => {
    if (hasMore && !loadingMore && !loadMoreFailed && lastShown >= props.keys.length - FETCH_AHEAD_ROWS) {
      onLoadMore();
    }
  }, [hasMore, loadingMore, loadMoreFailed, lastShown, props.keys.length, onLoadMore]);
  // Other filters or another order: other rows, shown from the first (the old position hid them).
  const { viewOf } = props;
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the view changes
  useEffect(() => {
    const table = tableRef.current;
    if (!table) return;
    // Back to the table's top if the page was scrolled into its rows; a page above them stays.
    const tableTop = table.getBoundingClientRect().top + window.scrollY - header;
    if (window.scrollY > tableTop) window.scrollTo({ top: Math.max(0, tableTop) });
  }, [viewOf]);
  // A new key is scrolled to once its row is loaded.
  const highlightedIndex = highlighted === null ? -1 : keys.findIndex((key) => key.key === highlighted);
  useEffect(() => {
    if (highlightedIndex < 0) return;
    const scroll = () => virtualizer.scrollToIndex(highlightedIndex, { align: "center" });
    const locked = () => document.body.hasAttribute(SCROLL_LOCK);
    if (!locked()) {
      scroll();
      return;
    }
    // A dialog (the new key's) locks the page's scroll: the row is scrolled to once it closes.
    const observer = new MutationObserver(() => {
      if (locked()) return;
      observer.disconnect();
      scroll();
    });
    observer.observe(document.body, { attributes: true, attributeFilter: [SCROLL_LOCK] });
    return () => observer.disconnect();
  }, [highlightedIndex, virtualizer]);
  // Stable callbacks for the memoized rows; they call the latest handlers.
  const latest = useRef({ props, copy, where });
  latest.current = { props, copy, where };
  const onCopy = useCallback((key: ApiKeyView) => {
    const { props: current, copy: copier, where: acting } = latest.current;
    copyNotice(copier, current.accountKey, key.key, key.name, acting);
  }, []);
  const onDetails = useCallback((key: ApiKeyView) => latest.current.props.onDetails(key), []);
  const onEdit = useCallback((key: ApiKeyView) => latest.current.props.onEdit(key), []);
  const onToggle = useCallback(
    (key: ApiKeyView, enabled: boolean) => latest.current.props.onToggle(key, enabled),
    [],
  );
  const onSelect = useCallback(
    (key: ApiKeyView, selected: boolean, range: boolean) =>
      latest.current.props.selection.onSelect(key, selected, range),
    [],
  );
  return (
    <div
      ref={mergedRef}
      className="kd-keys-scroll"
      // What covers a row scrolled to: the window's header (the table's head row is added in CSS).
      style={{ "--kd-keys-header": `${header}px` } as CSSProperties}
    >
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
        className="kd-keys-table"
      >
        <thead className="kd-keys-thead" style={{ top: header }}>
          <tr
            aria-rowindex={1}
            className="kd-keys-row kd-keys-head"
            style={{ gridTemplateColumns: layout.template }}
          >
            {layout.columns.map((column) => (
              <th
                key={column.id}
                scope="col"
                className="kd-keys-cell"
                title={column.header}
                aria-sort={
                  column.sort === props.sort.by ? (props.sort.desc ? "descending" : "ascending") : undefined
                }
              >
                {column.id === "name" ? (
                  // The checkbox comes after the header in the DOM (the column is still named
                  // "Name…" for assistive technology) and first on screen, above the rows' boxes.
                  <Group gap={6} wrap="nowrap" justify="flex-end" style={{ flexDirection: "row-reverse" }}>
                    <SortHeader label={column.header} by="name" sort={props.sort} onSort={props.onSort} />
                    <Checkbox
                      size="xs"
                      checked={props.selection.all}
                      indeterminate={props.selection.some && !props.selection.all}
                      onChange={(event) => props.selection.onSelectLoaded(event.currentTarget.checked)}
                      aria-label="Select every loaded key"
                      data-testid="key-select-loaded"
                      style={{ flexShrink: 0 }}
                    />
                  </Group>
                ) : column.sort ? (
                  <SortHeader
                    label={column.header}
                    by={column.sort}
                    sort={props.sort}
                    onSort={props.onSort}
                  />
                ) : (
                  column.header
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody ref={bodyRef} className="kd-keys-tbody" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const key = props.keys[item.index];
            if (key === undefined) {
              return (
                <tr
                  key="loading-more"
                  data-testid="key-rows-loading"
                  className="kd-keys-row"
                  style={{ height: ROW_HEIGHT, transform: `translateY(${item.start - rowsTop}px)` }}
                >
                  <td className="kd-keys-cell">
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
                data-highlighted={key.key === highlighted}
                className="kd-keys-row"
                style={{
                  gridTemplateColumns: layout.template,
                  height: ROW_HEIGHT,
                  transform: `translateY(${item.start - rowsTop}px)`,
                }}
              >
                <KeyRow
                  apiKey={key}
                  columns={columnIds}
                  accountKey={props.accountKey}
                  now={now}
                  copying={copy.isPending && copy.variables?.key === key.key}
                  onCopy={onCopy}
                  onDetails={onDetails}
                  onEdit={onEdit}
                  onToggle={onToggle}
                  onSelect={onSelect}
                  syncMark={props.syncMarks.get(key.key)}
                  selected={props.selection.isSelected(key.key)}
                />
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
