import { Alert, Badge, Button, Group, Modal, Stack, Table, Text, Title, VisuallyHidden } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useEffect, useRef, useState } from "react";
import type { LocalOnlyKeyDto, SyncLinkDto } from "../../../../shared/sync.ts";
import { errorText } from "../../bridgeHooks.ts";
import { useNavigation } from "../../navigation.ts";
import { useNow } from "../../useNow.ts";
import { WHOLE_BADGE } from "../../wholeBadge.ts";
import { STATE_COLORS } from "../keys/KeyTable.tsx";
import { KEY_STATE_LABELS, keyState } from "../keys/keyState.ts";
import { failed } from "./failureToast.ts";
import { useLocalOnlyKeys, usePushLocalOnly } from "./syncHooks.ts";

const keysText = (count: number) => `${count} ${count === 1 ? "key" : "keys"}`;

/** What pushing does to a key, said before the admin confirms "push all" and under the list. */
const PUSH_EFFECT =
  "Pushing creates the key on the remote at the next sync; the key here then takes the remote's publicApiKey (the value it has now stops working). A disabled key is created not yet valid and disabled right after, so it never works there.";

/**
 * Keys of the linked account that the link does not carry (they were there before it was made):
 * their count, the list page after page, and pushing them one by one or all at once.
 */
export function LocalOnlyKeys({ link }: { link: SyncLinkDto }) {
  const keys = useLocalOnlyKeys(link.id);
  const push = usePushLocalOnly();
  const [confirmAll, setConfirmAll] = useState(false);
  if (keys.isPending) return <Text size="sm">Loading local-only keys…</Text>;
  if (keys.isError) {
    return (
      <Alert color="red.9" role="alert">
        {errorText(keys.error)}
      </Alert>
    );
  }
  const count = keys.data.pages[0]?.count ?? 0;
  if (count === 0) return null;
  const shown = keys.data.pages.flatMap((page) => page.keys);
  const pushed = (what: string) => (answer: { queued: number }) =>
    notifications.show({
      color: "green",
      message:
        answer.queued === 0
          ? `${what} was already linked.`
          : `${keysText(answer.queued)} queued: ${answer.queued === 1 ? "it goes" : "they go"} to the remote at the next sync.`,
    });
  const pushOne = (key: LocalOnlyKeyDto) =>
    push.mutate(
      { id: link.id, keys: [key.key] },
      { onSuccess: pushed(key.name), onError: failed(`Could not push ${key.name}`) },
    );
  const pushAll = () =>
    push.mutate(
      { id: link.id, all: true },
      {
        onSuccess: (answer) => {
          setConfirmAll(false);
          pushed("Every key")(answer);
        },
        onError: failed("Could not push the local-only keys"),
      },
    );

  return (
    <Stack gap="xs" component="section" aria-label="Local-only keys" data-testid="sync-local-only">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Title order={5}>
          Local only: <span data-testid="sync-local-only-count">{keysText(count)}</span>
        </Title>
        <Button size="compact-sm" variant="default" onClick={() => setConfirmAll(true)}>
          Push all {count}
        </Button>
      </Group>
      <Text size="sm">
        These keys were in the account before it was linked: they are not on the remote, and changes to them
        are not synced. {PUSH_EFFECT}
      </Text>
      <Table.ScrollContainer minWidth={320}>
        <Table striped withTableBorder verticalSpacing={4} fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>State</Table.Th>
              <Table.Th>
                <VisuallyHidden>Push</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {shown.map((key) => (
              <LocalOnlyRow key={key.key} syncKey={key} busy={push.isPending} onPush={() => pushOne(key)} />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {keys.hasNextPage && (
        <Button
          size="compact-sm"
          variant="subtle"
          onClick={() => void keys.fetchNextPage()}
          loading={keys.isFetchingNextPage}
        >
          Show more ({shown.length} of {count} shown)
        </Button>
      )}
      <Modal
        opened={confirmAll}
        onClose={() => setConfirmAll(false)}
        title={`Push ${keysText(count)} to the remote?`}
        centered
      >
        <Stack>
          <Text size="sm">{PUSH_EFFECT}</Text>
          <Group justify="flex-end" className="kd-sticky-footer">
            <Button variant="default" onClick={() => setConfirmAll(false)}>
              Cancel
            </Button>
            <Button onClick={pushAll} loading={push.isPending}>
              Push all {count}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}

/** One local-only key; opened from its "Local only" mark in the Keys table, its Push has the focus. */
function LocalOnlyRow(props: { syncKey: LocalOnlyKeyDto; busy: boolean; onPush(): void }) {
  const { syncKey: key } = props;
  const opened = useNavigation().syncKey === key.key;
  const state = keyState(key, useNow(60_000));
  const push = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!opened || !push.current) return;
    push.current.scrollIntoView({ block: "center" });
    push.current.focus({ preventScroll: true });
  }, [opened]);
  return (
    <Table.Tr data-testid="sync-local-only-key" data-key={key.key} data-opened={opened || undefined}>
      <Table.Td style={{ overflowWrap: "anywhere" }}>{key.name}</Table.Td>
      <Table.Td>
        {/* The state the Keys table shows, by the same rule: an expired key is not "Enabled". */}
        <Badge
          size="sm"
          variant="dot"
          tt="none"
          color={STATE_COLORS[state]}
          styles={WHOLE_BADGE}
          data-testid="sync-local-only-state"
        >
          {KEY_STATE_LABELS[state]}
        </Badge>
      </Table.Td>
      <Table.Td ta="right">
        <Button
          ref={push}
          size="compact-xs"
          variant="default"
          onClick={props.onPush}
          disabled={props.busy}
          aria-label={`Push ${key.name} to the remote`}
        >
          Push
        </Button>
      </Table.Td>
    </Table.Tr>
  );
}
