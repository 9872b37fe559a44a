import { Alert, Badge, Button, Card, Code, Group, Stack, Table, Text, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useEffect, useRef } from "react";
import type { SyncedField, SyncKeyDto, SyncLinkDto } from "../../../../shared/sync.ts";
import { errorText } from "../../bridgeHooks.ts";
import { useNavigation } from "../../navigation.ts";
import { useLatestNow } from "../../useNow.ts";
import { failed } from "./failureToast.ts";
import { useResolveConflict, useSyncKeys } from "./syncHooks.ts";
import { FIELD_LABELS, formatFieldValue, mineChangeText, theirsChangeText } from "./syncState.ts";

export function KeysNeedingAttention({ link }: { link: SyncLinkDto }) {
  const keys = useSyncKeys(link.id);
  if (keys.isPending) return <Text size="sm">Loading linked keys…</Text>;
  if (keys.isError) {
    return (
      <Alert color="red.9" role="alert">
        {errorText(keys.error)}
      </Alert>
    );
  }
  const conflicts = keys.data.filter((key) => key.conflicts.length > 0);
  const missing = keys.data.filter((key) => key.state === "remote-missing");
  return (
    <>
      <Stack gap="xs" component="section" aria-label="Conflicts" data-testid="sync-conflict-list">
        <Title order={5}>Conflicts</Title>
        {conflicts.length === 0 ? (
          <Text size="sm" data-testid="sync-no-conflicts">
            No conflicts.
          </Text>
        ) : (
          conflicts.map((key) => <ConflictCard key={key.key} link={link} syncKey={key} />)
        )}
      </Stack>
      {missing.length > 0 && (
        <Stack gap="xs" component="section" aria-label="Keys the remote no longer lists">
          <Title order={5}>Gone from the remote</Title>
          <Text size="sm">
            The remote no longer lists these keys; they are kept here and no longer synced.
          </Text>
          <Group gap="xs">
            {missing.map((key) => (
              <Badge key={key.key} variant="dot" color="orange.9" data-testid="sync-remote-missing-key">
                {key.name}
              </Badge>
            ))}
          </Group>
        </Stack>
      )}
    </>
  );
}

/** Who made one side of a conflict and when, under its value. */
function ChangeOrigin(props: { text: string; title?: string | undefined; testId: string }) {
  return (
    <Text size="xs" c="dimmed" data-testid={props.testId} title={props.title}>
      {props.text}
    </Text>
  );
}

function ConflictCard({ link, syncKey }: { link: SyncLinkDto; syncKey: SyncKeyDto }) {
  const resolve = useResolveConflict();
  const now = useLatestNow();
  // Opened from the key's sync mark in the Keys table: this card is what the admin came for.
  const opened = useNavigation().syncKey === syncKey.key;
  const card = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!opened || !card.current) return;
    card.current.scrollIntoView({ block: "center" });
    card.current.focus({ preventScroll: true });
  }, [opened]);
  const choose = (field: SyncedField, take: "mine" | "theirs") =>
    resolve.mutate(
      { id: link.id, key: syncKey.key, field, take },
      {
        onSuccess: () =>
          notifications.show({
            color: "green",
            message: `${FIELD_LABELS[field]} of “${syncKey.name}”: ${take === "mine" ? "kept yours" : "took the remote's"}.`,
          }),
        onError: failed("Could not resolve the conflict"),
      },
    );
  return (
    <Card
      withBorder
      p="xs"
      data-testid="sync-conflict"
      data-key-id={syncKey.key}
      data-opened={opened || undefined}
      ref={card}
      tabIndex={-1}
      role="group"
      aria-label={`Conflict of ${syncKey.name}`}
      style={opened ? { borderColor: "var(--mantine-primary-color-filled)", borderWidth: 2 } : undefined}
    >
      <Text size="sm" fw={600}>
        {syncKey.name} <Code>{syncKey.key}</Code>
      </Text>
      <Table aria-label={`Conflicting fields of ${syncKey.name}`}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Field</Table.Th>
            <Table.Th>Mine (local)</Table.Th>
            <Table.Th>Remote</Table.Th>
            <Table.Th>Choose</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {syncKey.conflicts.map((conflict) => {
            const label = FIELD_LABELS[conflict.field];
            const busy = resolve.isPending && resolve.variables?.field === conflict.field;
            return (
              <Table.Tr key={conflict.field} data-testid="sync-conflict-field" data-field={conflict.field}>
                <Table.Td>{label}</Table.Td>
                <Table.Td>
                  <Text size="sm" data-testid="conflict-mine">
                    {formatFieldValue(conflict.field, conflict.mine)}
                  </Text>
                  <ChangeOrigin testId="conflict-mine-origin" {...mineChangeText(conflict.mineChange, now)} />
                </Table.Td>
                <Table.Td>
                  <Text size="sm" data-testid="conflict-theirs">
                    {formatFieldValue(conflict.field, conflict.theirs)}
                  </Text>
                  <ChangeOrigin
                    testId="conflict-theirs-origin"
                    {...theirsChangeText(conflict.theirsChange, now)}
                  />
                </Table.Td>
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    <Button
                      size="compact-sm"
                      variant="default"
                      loading={busy && resolve.variables?.take === "mine"}
                      disabled={resolve.isPending}
                      onClick={() => choose(conflict.field, "mine")}
                      aria-label={`Keep mine: ${label} of ${syncKey.name}`}
                    >
                      Keep mine
                    </Button>
                    <Button
                      size="compact-sm"
                      variant="default"
                      loading={busy && resolve.variables?.take === "theirs"}
                      disabled={resolve.isPending}
                      onClick={() => choose(conflict.field, "theirs")}
                      aria-label={`Take remote: ${label} of ${syncKey.name}`}
                    >
                      Take remote
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Card>
  );
}
