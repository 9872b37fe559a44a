import { Alert, Button, Group, List, Modal, Progress, Stack, Text, TextInput } from "@mantine/core";
import { useEffect, useId, useMemo, useState } from "react";
import type { ApiKeyView, KeyQueryDto } from "../../../../shared/bridge.ts";
import type { BulkResultDto } from "../../../../shared/keyLifecycleBridge.ts";
import { getBridge } from "../../bridge.ts";
import { errorText } from "../../bridgeHooks.ts";
import { OnceOpened } from "../../OnceOpened.tsx";
import { useProfileScope } from "../../profileScope.ts";
import { bulkSyncedNotice, type SyncMarks } from "../sync/syncState.ts";
import { bulkEffect, confirmationMatches, typedConfirmation } from "./bulkConfirm.ts";
import type { TableSelection } from "./KeyTable.tsx";
import { useBulkSetEnabled, useKeyCount } from "./keyHooks.ts";
import {
  bulkSelectionOf,
  changingCount,
  isSelected,
  type KeySelection,
  NOTHING_SELECTED,
  selectedCount,
  selectKey,
  selectLoaded,
} from "./keySelection.ts";
import { keysWord } from "./keysWord.ts";

/**
 * Bulk enable/disable of the Keys view: the selection (checkboxes, shift-click, all matching the
 * filter), the bar that acts on it, one confirmation naming the profile, the account and the count
 * of keys it changes, and how many selected keys are in that state already (a disable of many keys
 * asks for the count typed: bulkConfirm.ts), progress while main works through a large selection,
 * and the result with each key that failed and why, and how many keys an enable left refused all
 * the same (expired, not valid yet).
 */

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
          {props.enabled && result.stillRefused.expired + result.stillRefused.notYetValid > 0 && (
            <Alert color="orange" title="Enabled, but still refused" data-testid="bulk-still-refused">
              {stillRefusedText(result.stillRefused)}
            </Alert>
          )}
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
          <Group justify="flex-end" className="kd-sticky-footer">
            <Button onClick={props.onClose} data-autofocus>
              Done
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

/** "2 of these keys are still refused: 1 expired, 1 not valid yet. …" */
function stillRefusedText(refused: BulkResultDto["stillRefused"]): string {
  const total = refused.expired + refused.notYetValid;
  const parts = [
    refused.expired > 0 ? `${refused.expired.toLocaleString()} expired` : "",
    refused.notYetValid > 0 ? `${refused.notYetValid.toLocaleString()} not valid yet` : "",
  ].filter(Boolean);
  return `${keysWord(total)} of these ${total === 1 ? "is" : "are"} still refused: ${parts.join(", ")}. Enabling does not change a key's validity; edit its Valid from or Valid to to use it.`;
}

/** The confirmation of a bulk change: what it does, where, and (for a mass disable) the count typed. */
function BulkConfirm(props: {
  enabled: boolean;
  countText: string;
  count: number | undefined;
  /** How many of them the change changes (the rest are in that state already), when counted. */
  changing: number | undefined;
  accountName: string;
  /** Says that synced keys among them change on their remote too, when some are. */
  syncedNotice: string | null | undefined;
  onCancel(): void;
  onConfirm(): void;
}) {
  const profile = useProfileScope();
  const [typed, setTyped] = useState("");
  // The number asked is of the keys that change: those already disabled are no outage.
  const expected = props.enabled ? null : typedConfirmation(props.changing, props.accountName);
  const ready = (expected === null || confirmationMatches(typed, expected)) && props.changing !== 0;
  const verb = props.enabled ? "Enable" : "Disable";
  const state = props.enabled ? "enabled" : "disabled";
  const changingText = props.changing === undefined ? props.countText : keysWord(props.changing);
  const unchanged =
    props.count === undefined || props.changing === undefined ? undefined : props.count - props.changing;
  return (
    <Stack data-testid="bulk-confirm">
      <Text size="sm" data-testid="bulk-scope">
        Profile <b>{profile.name}</b>, account <b>{props.accountName}</b>.
      </Text>
      <Text size="sm">{bulkEffect(props.enabled, props.changing ?? props.count)}</Text>
      {unchanged !== 0 && (
        <Text size="sm" data-testid="bulk-unchanged">
          {unchanged === undefined
            ? `Keys already ${state} are left as they are.`
            : `${unchanged.toLocaleString()} of the ${props.countText} selected ${unchanged === 1 ? "is" : "are"} already ${state} and left as ${unchanged === 1 ? "it is" : "they are"}.`}
        </Text>
      )}
      {props.syncedNotice && (
        <Alert color="blue" variant="light" p="xs" data-testid="synced-change-notice">
          <Text size="sm">{props.syncedNotice}</Text>
        </Alert>
      )}
      {expected !== null && (
        <TextInput
          label={`To disable ${changingText}, type ${props.changing === undefined ? "the account's name" : "the number of keys"}: ${expected}`}
          value={typed}
          onChange={(event) => setTyped(event.currentTarget.value)}
          autoComplete="off"
          spellCheck={false}
          data-autofocus
          data-testid="bulk-typed-confirmation"
        />
      )}
      <Group justify="flex-end" className="kd-sticky-footer">
        <Button
          variant="default"
          onClick={props.onCancel}
          {...(expected === null && { "data-autofocus": true })}
        >
          Cancel
        </Button>
        <Button color={props.enabled ? "blue" : "red"} disabled={!ready} onClick={props.onConfirm}>
          {verb} {changingText}
        </Button>
      </Group>
    </Stack>
  );
}

export function useBulkActions(props: {
  accountKey: string;
  /** The account's name, as the dialogs say where they act (and a mass disable asks it typed). */
  accountName: string;
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
  const target = confirming === true;
  const { query } = props;
  // "All matching" of a filter not loaded whole: the service counts the keys in the other state.
  const allLoaded = props.matching !== undefined && rows.length >= props.matching;
  const otherStateQuery = useKeyCount(
    props.accountKey,
    { ...query, enabled: !target },
    confirming !== null && selection.mode === "matching" && !allLoaded && query.enabled !== target,
  );
  const otherState =
    query.enabled === target
      ? 0
      : allLoaded
        ? rows.filter((row) => row.enabled !== target).length
        : otherStateQuery.data;
  const changing = changingCount(selection, rows, target, otherState);
  const bar = anything ? (
    <Group gap="xs" data-testid="bulk-bar" wrap="wrap">
      <Text size="sm" fw={600} data-testid="bulk-count">
        {selection.mode === "matching"
          ? count === undefined
            ? "All keys matching the filter selected"
            : `All ${countText} matching the filter selected`
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
          title={`${confirming ? "Enable" : "Disable"} ${changing === undefined ? countText : keysWord(changing)}?`}
        >
          <BulkConfirm
            enabled={confirming === true}
            countText={countText}
            count={count}
            changing={changing}
            accountName={props.accountName}
            syncedNotice={syncedNotice}
            onCancel={() => setConfirming(null)}
            onConfirm={() => apply(confirming === true)}
          />
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
