import { Alert, Badge, Button, Group, Modal, Stack, Table, Text, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useState } from "react";
import type { SyncLinkDto, SyncOutboxEntryDto } from "../../../../shared/sync.ts";
import { errorText } from "../../bridgeHooks.ts";
import { WHOLE_BADGE } from "../../wholeBadge.ts";
import { failed } from "./failureToast.ts";
import { useDiscardEntry, useRetryEntry, useSyncKeys, useSyncOutbox } from "./syncHooks.ts";
import { FIELD_LABELS } from "./syncState.ts";

function changeText(entry: SyncOutboxEntryDto): string {
  if (entry.kind === "create") return "create";
  return `update: ${entry.fields.map((field) => FIELD_LABELS[field]).join(", ") || "fields"}`;
}

export function OutboxList({ link }: { link: SyncLinkDto }) {
  const outbox = useSyncOutbox(link.id);
  const keys = useSyncKeys(link.id);
  const retry = useRetryEntry();
  const discard = useDiscardEntry();
  const [discarding, setDiscarding] = useState<SyncOutboxEntryDto | null>(null);
  const nameOf = (key: string) => keys.data?.find((each) => each.key === key)?.name ?? key;
  return (
    <Stack gap="xs" component="section" aria-label="Outbox" data-testid="sync-outbox">
      <Title order={5}>Outbox</Title>
      {outbox.isPending && <Text size="sm">Loading the outbox…</Text>}
      {outbox.isError && (
        <Alert color="red.9" role="alert">
          {errorText(outbox.error)}
        </Alert>
      )}
      {outbox.data?.length === 0 && (
        <Text size="sm" data-testid="sync-outbox-empty">
          Nothing waiting to go out.
        </Text>
      )}
      {outbox.data && outbox.data.length > 0 && (
        <Table aria-label={`Outbox of link ${link.id}`} striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Key</Table.Th>
              <Table.Th>Change</Table.Th>
              <Table.Th>Attempts</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {outbox.data.map((entry) => (
              <Table.Tr key={entry.id} data-testid="sync-outbox-entry" data-failed={entry.failed}>
                <Table.Td>{nameOf(entry.key)}</Table.Td>
                <Table.Td>{changeText(entry)}</Table.Td>
                <Table.Td>{entry.attempts}</Table.Td>
                <Table.Td>
                  {entry.failed ? (
                    <Stack gap={2}>
                      <Badge color="red.9" variant="dot" styles={WHOLE_BADGE}>
                        Failed
                      </Badge>
                      {entry.lastError && (
                        <Text size="xs" c="red.9">
                          {entry.lastError}
                        </Text>
                      )}
                    </Stack>
                  ) : entry.heldFields.length > 0 ? (
                    <Badge
                      color="orange.9"
                      variant="dot"
                      styles={WHOLE_BADGE}
                      title="Resolve the conflict above to send it"
                    >
                      {entry.heldFields.length === entry.fields.length
                        ? "Held by conflict"
                        : "Partly held by conflict"}
                    </Badge>
                  ) : (
                    <Badge color="blue.9" variant="dot" styles={WHOLE_BADGE}>
                      Waiting
                    </Badge>
                  )}
                </Table.Td>
                <Table.Td>
                  {entry.failed && (
                    <Group gap={4} wrap="nowrap">
                      <Button
                        size="compact-sm"
                        variant="default"
                        loading={retry.isPending && retry.variables?.entryId === entry.id}
                        aria-label={`Retry the change of ${nameOf(entry.key)}`}
                        onClick={() =>
                          retry.mutate(
                            { id: link.id, entryId: entry.id },
                            {
                              onSuccess: () =>
                                notifications.show({
                                  color: "green",
                                  message: "The change is back in the queue; it goes out with the next sync.",
                                }),
                              onError: failed("Could not retry the change"),
                            },
                          )
                        }
                      >
                        Retry
                      </Button>
                      <Button
                        size="compact-sm"
                        variant="outline"
                        color="red.9"
                        aria-label={`Discard the change of ${nameOf(entry.key)}`}
                        onClick={() => setDiscarding(entry)}
                      >
                        Discard
                      </Button>
                    </Group>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <Modal
        opened={discarding !== null}
        onClose={() => setDiscarding(null)}
        title="Discard the change"
        centered
      >
        <Stack>
          <Text size="sm">
            Discard the {discarding ? changeText(discarding) : ""} of “
            {discarding ? nameOf(discarding.key) : ""}
            ”? It is not sent to the remote; the local key stays as it is.
          </Text>
          <Group justify="flex-end" className="kd-sticky-footer">
            <Button variant="default" onClick={() => setDiscarding(null)}>
              Cancel
            </Button>
            <Button
              color="red.9"
              loading={discard.isPending}
              onClick={() => {
                if (!discarding) return;
                discard.mutate(
                  { id: link.id, entryId: discarding.id },
                  {
                    onSuccess: () => {
                      notifications.show({ color: "green", message: "The change is discarded." });
                      setDiscarding(null);
                    },
                    onError: failed("Could not discard the change"),
                  },
                );
              }}
            >
              Discard change
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
