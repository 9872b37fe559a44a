import { Alert, Badge, Group, Loader, Stack, Text } from "@mantine/core";
import type { AuditChange, AuditEntryDto } from "../../../../shared/audit.ts";
import { errorText } from "../../bridgeHooks.ts";
import { TimeText } from "../../TimeText.tsx";
import { FIELD_LABELS as SYNCED_FIELD_LABELS } from "../sync/syncState.ts";
import { actorText, entryTitle, setsEveryField } from "./keyHistoryText.ts";
import { useKeyHistory } from "./keyHooks.ts";

/** Every recorded field is a synced one: the labels the sync view uses, by any field name. */
const FIELD_LABELS: Record<string, string> = SYNCED_FIELD_LABELS;

/** A value as the entry holds it, in words: not set, yes/no, a list, a time with its zone. */
function Value(props: { value: unknown }) {
  const { value } = props;
  if (value === null || value === undefined) return <em>not set</em>;
  if (typeof value === "boolean") return <>{value ? "yes" : "no"}</>;
  if (Array.isArray(value)) return <>{value.join(", ")}</>;
  if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}T/.test(value)) return <TimeText at={value} />;
  return <>{String(value)}</>;
}

function Change(props: { field: string; change: AuditChange; created: boolean }) {
  return (
    <Text size="xs" data-testid="key-history-change">
      <b>{FIELD_LABELS[props.field] ?? props.field}</b>:{" "}
      {props.created ? null : (
        <>
          <Value value={props.change.old} /> →{" "}
        </>
      )}
      <Value value={props.change.new} />
    </Text>
  );
}

function Entry(props: { entry: AuditEntryDto; now: number }) {
  const { entry } = props;
  const created =
    entry.action === "create" ||
    ((entry.action === "rotate" || entry.action === "sync-pull") && setsEveryField(entry));
  return (
    <Stack gap={2} data-testid="key-history-entry">
      <Group gap="xs" wrap="wrap">
        <Badge variant="light" size="sm">
          {entryTitle(entry)}
        </Badge>
        {entry.reason === "bulk" && (
          <Badge variant="outline" size="sm">
            bulk action
          </Badge>
        )}
        <Text size="xs" c="dimmed">
          <TimeText at={entry.time} now={props.now} relative />
        </Text>
      </Group>
      <Text size="xs">{actorText(entry)}</Text>
      {Object.entries(entry.changes).map(([field, change]) => (
        <Change key={field} field={field} change={change} created={created} />
      ))}
    </Stack>
  );
}

/** The details panel's History section: who changed the key, when, through what, old → new. */
export function KeyHistory(props: { accountKey: string; keyId: string }) {
  const history = useKeyHistory(props.accountKey, props.keyId);
  const now = Date.now();
  if (history.isPending) return <Loader size="xs" aria-label="Loading the history" />;
  if (history.isError) {
    return (
      <Alert color="red" variant="light" data-testid="key-history-error">
        The history could not be read: {errorText(history.error)}
      </Alert>
    );
  }
  const data = history.data;
  if (!data.kept) {
    return (
      <Text size="sm" c="dimmed" data-testid="key-history-none">
        This service keeps no audit history.
      </Text>
    );
  }
  if (data.entries.length === 0) {
    return (
      <Text size="sm" c="dimmed" data-testid="key-history-empty">
        No changes recorded (the history begins when the service started keeping it, and entries older than
        its retention are deleted).
      </Text>
    );
  }
  return (
    <Stack gap="sm" data-testid="key-history">
      {data.entries.map((entry, index) => (
        // Entries have no id of their own; their order is fixed (newest first).
        // biome-ignore lint/suspicious/noArrayIndexKey: a stable list, never reordered
        <Entry key={index} entry={entry} now={now} />
      ))}
      {data.more && (
        <Text size="xs" c="dimmed">
          Older changes are not shown here; GET /local/1/audit?key={props.keyId} lists them all.
        </Text>
      )}
    </Stack>
  );
}
