import { Button, Group, Modal, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import type { SyncLinkDto } from "../../../../shared/sync.ts";
import { failed } from "./failureToast.ts";
import { useRemoveLink } from "./syncHooks.ts";

/** Asks before removing a link. */
export function RemoveLinkDialog(props: {
  opened: boolean;
  link: SyncLinkDto;
  title: string;
  onClose(): void;
}) {
  const remove = useRemoveLink();
  return (
    <Modal opened={props.opened} onClose={props.onClose} title="Remove the link" centered>
      <Stack>
        <Text size="sm">
          Remove the link {props.title}? Keys already copied stay in both places; changes still waiting in the
          outbox are not sent, and conflicts are left as they are.
        </Text>
        <Group justify="flex-end" className="kd-sticky-footer">
          <Button variant="default" onClick={props.onClose}>
            Cancel
          </Button>
          <Button
            color="red.9"
            loading={remove.isPending}
            onClick={() =>
              remove.mutate(
                { id: props.link.id },
                {
                  onSuccess: () => {
                    notifications.show({ color: "green", message: "The link is removed." });
                    props.onClose();
                  },
                  onError: failed("Could not remove the link"),
                },
              )
            }
          >
            Remove link
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
