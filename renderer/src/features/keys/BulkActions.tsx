import { Alert, Button, Group, List, Modal, Progress, Stack, Text } from "@mantine/core";
import { useEffect, useId, useMemo, useState } from "react";
import type { ApiKeyView, KeyQueryDto } from "../../../../shared/bridge.ts";
import type { BulkResultDto } from "../../../../shared/keyLifecycleBridge.ts";
import { getBridge } from "../../bridge.ts";
import { errorText } from "../../bridgeHooks.ts";
import { OnceOpened } from "../../OnceOpened.tsx";
import { bulkSyncedNotice, type SyncMarks } from "../sync/syncState.ts";
import type { TableSelection } from "./KeyTable.tsx";
import { useBulkSetEnabled } from "./keyHooks.ts";
import {
  bulkSelectionOf,
  isSelected,
  type KeySelection,
  NOTHING_SELECTED,
  selectedCount,
  selectKey,
  selectLoaded,
} from "./keySelection.ts";

/**
 * Bulk enable/disable of the Keys view: the selection (checkboxes, shift-click, all matching the
 * filter), the bar that acts on it, one confirmation naming the count, progress while main works
 * through a large selection, and the result with each key that failed and why.
 */

const keysWord = (count: number) => `${count.toLocaleString()} key${count === 1 ? "" : "s"}`;

function BulkResult(props: { result: BulkResultDto | null; enabled: boolean; onClose(): void }) {
  const { result } = props;
  const verb = props.enabled ? "Enabled" : "Disabled";
  return (
    <Modal
      opened={result !== null}
      onClose={props.onClose}
      title={`${verb} ${keysWord(result?.changed ?? 0)}`}
    >
      {result && (
        <Stack data-testid="bulk-result">
          <Text size="sm">
            {verb} {keysWord(result.changed)} of {keysWord(result.selected)} selected
            {result.skipped > 0
              ? `; ${keysWord(result.skipped)} already ${props.enabled ? "enabled" : "disabled"}, left as they were`
              : ""}
            .
          </Text>
          {result.failed.length > 0 && (
            <Alert color="red" title={`${keysWord(result.failed.length)} could not be changed`}>
              <List size="sm" data-testid="bulk-failures">
                {result.failed.map((failure) => (
                  <List.Item key={failure.key}>
                    <b>{failure.name || failure.key}</b>: {failure.error.text}
                  </List.Item>
                ))}
              </List>
            </Alert>
          )}
          <Group justify="flex-end">
            <Button onClick={props.onClose} data-autofocus>
              Done
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

export function useBulkActions(props: {
  accountKey: string;
  query: KeyQueryDto;
  /**
   * The filters as the user set them. The selection is cleared when they change, not when the
   * service's query catches up with them (typing settles a moment later): a row ticked in between
   * is a row of the filter in view and stays ticked.
   */
  filterScope: string;
  rows: readonly ApiKeyView[];
  /** How many keys the filter matches, when counted. */
  matching: number | undefined;
  /** The account's synced keys: the confirmation says where their change also goes. */
  syncMarks: SyncMarks;
}) {
  const [selection, setSelection] = useState<KeySelection>(NOTHING_SELECTED);
  const [confirming, setConfirming] = useState<boolean | null>(null);
  const [result, setResult] = useState<{ enabled: boolean; result: BulkResultDto } | null>(null);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const bulk = useBulkSetEnabled();
  const progressId = useId().replace(/[^\w-]/g, "");
  // Another account or filter: the selection is of keys no longer in view.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset on the account or filters changing
  useEffect(() => setSelection(NOTHING_SELECTED), [props.accountKey, props.filterScope]);
  useEffect(
    () =>
      getBridge().onEvent((event) => {
        if (event.type === "bulk-progress" && event.progressId === progressId) {
          setProgress({ done: event.done, total: event.total });
        }
      }),
    [progressId],
  );
  const count = selectedCount(selection, props.matching);
  const loadedSelected = props.rows.filter((row) => isSelected(selection, row.key)).length;
  const { rows } = props;
  const table: TableSelection = useMemo(
    () => ({
      isSelected: (key) => isSelected(selection, key),
      all: rows.length > 0 && loadedSelected === rows.length,
      some: loadedSelected > 0,
      onSelect: (key, selected, range) =>
        setSelection((now) => selectKey(now, rows, key.key, selected, range)),
      onSelectLoaded: (selected) => setSelection((now) => selectLoaded(now, rows, selected)),
    }),
    [selection, rows, loadedSelected],
  );
  const apply = (enabled: boolean) => {
    setConfirming(null);
    setProgress(null);
    bulk.mutate(
      {
        accountKey: props.accountKey,
        enabled,
        selection: bulkSelectionOf(selection, props.query),
        progressId,
      },
      {
        onSuccess: (answer) => {
          setResult({ enabled, result: answer });
          setSelection(NOTHING_SELECTED);
        },
        onSettled: () => setProgress(null),
      },
    );
  };
  const anything = selection.mode === "matching" || selection.keys.size > 0;
  const syncedNotice =
    confirming === null
      ? null
      : bulkSyncedNotice(props.syncMarks, selection.mode === "matching" ? "matching" : selection.keys);
  const countText = count === undefined ? "all matching keys" : keysWord(count);
  const bar = anything ? (
    <Group gap="xs" data-testid="bulk-bar" wrap="wrap">
      <Text size="sm" fw={600} data-testid="bulk-count">
        {selection.mode === "matching"
          ? `All ${countText} matching the filter selected`
          : `${countText} selected`}
      </Text>
      {selection.mode === "keys" && props.matching !== undefined && props.matching > selection.keys.size && (
        <Button
          size="compact-sm"
          variant="subtle"
          onClick={() => setSelection({ mode: "matching", except: new Set(), anchor: null })}
        >
          Select all {props.matching.toLocaleString()} matching the filter
        </Button>
      )}
      <Button size="compact-sm" color="red" variant="light" onClick={() => setConfirming(false)}>
        Disable…
      </Button>
      <Button size="compact-sm" variant="light" onClick={() => setConfirming(true)}>
        Enable…
      </Button>
      <Button size="compact-sm" variant="default" onClick={() => setSelection(NOTHING_SELECTED)}>
        Clear selection
      </Button>
      {bulk.isPending && (
        <Group gap={6} wrap="nowrap" data-testid="bulk-progress">
          <Progress
            w={120}
            value={progress ? (100 * progress.done) / Math.max(1, progress.total) : 0}
            animated
            aria-label="Bulk change progress"
          />
          <Text size="xs" c="dimmed">
            {progress
              ? `${progress.done.toLocaleString()} of ${progress.total.toLocaleString()}`
              : "Starting…"}
          </Text>
        </Group>
      )}
      {bulk.error && (
        <Text size="sm" c="red">
          {errorText(bulk.error)}
        </Text>
      )}
    </Group>
  ) : null;
  const dialogs = (
    <>
      <OnceOpened opened={confirming !== null}>
        <Modal
          opened={confirming !== null}
          onClose={() => setConfirming(null)}
          title={`${confirming ? "Enable" : "Disable"} ${countText}?`}
        >
          <Stack data-testid="bulk-confirm">
            <Text size="sm">
              {confirming
                ? `Applications using these ${countText} are accepted again (within each key's validity, IPs and permissions).`
                : `Every application using these ${countText} is refused from now on (403 FORBIDDEN, “the API key … is disabled”) until the keys are enabled again.`}{" "}
              Keys already {confirming ? "enabled" : "disabled"} are left as they are.
            </Text>
            {syncedNotice && (
              <Alert color="blue" variant="light" p="xs" data-testid="synced-change-notice">
                <Text size="sm">{syncedNotice}</Text>
              </Alert>
            )}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setConfirming(null)} data-autofocus>
                Cancel
              </Button>
              <Button color={confirming ? "blue" : "red"} onClick={() => apply(confirming === true)}>
                {confirming ? "Enable" : "Disable"} {countText}
              </Button>
            </Group>
          </Stack>
        </Modal>
      </OnceOpened>
      <OnceOpened opened={result !== null}>
        <BulkResult
          result={result?.result ?? null}
          enabled={result?.enabled ?? false}
          onClose={() => setResult(null)}
        />
      </OnceOpened>
    </>
  );
  return { table, bar, dialogs };
}
