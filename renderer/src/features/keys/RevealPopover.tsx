import { Button, Code, Group, Popover, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useState } from "react";
import type { ApiKeyView } from "../../../../shared/bridge.ts";
import { errorText } from "../../bridgeHooks.ts";
import { CopyButton, copyNotice } from "./KeyDialogs.tsx";
import { useCopyPublicApiKey, useRevealPublicApiKey } from "./keyHooks.ts";

/**
 * The whole publicApiKey, selectable, with Copy beside it. It is fetched only on request and
 * forgotten when the panel closes.
 */
export function RevealedKey(props: { apiKey: ApiKeyView; accountKey: string; publicApiKey: string }) {
  const copy = useCopyPublicApiKey();
  return (
    <Group gap="xs" wrap="nowrap" align="flex-start">
      <Code
        block
        data-testid="revealed-public-api-key"
        style={{ wordBreak: "break-all", whiteSpace: "pre-wrap", userSelect: "all", flex: 1 }}
      >
        {props.publicApiKey}
      </Code>
      <CopyButton
        name={props.apiKey.name}
        loading={copy.isPending}
        onCopy={() => copyNotice(copy, props.accountKey, props.apiKey.key, props.apiKey.name)}
      />
    </Group>
  );
}

/** A row's Reveal: a popover over the table, never drawn into the neighbouring rows. */
export function RevealButton(props: { apiKey: ApiKeyView; accountKey: string }) {
  const reveal = useRevealPublicApiKey();
  const [shown, setShown] = useState<string | null>(null);
  const name = props.apiKey.name;
  const open = () =>
    reveal.mutate(
      { accountKey: props.accountKey, key: props.apiKey.key },
      {
        onSuccess: (full) => setShown(full.publicApiKey),
        onError: (error) =>
          notifications.show({ color: "red", title: "Reveal failed", message: errorText(error) }),
      },
    );
  return (
    <Popover
      opened={shown !== null}
      onChange={(opened) => !opened && setShown(null)}
      width={360}
      position="bottom-end"
      withArrow
      trapFocus
      returnFocus
      shadow="md"
    >
      <Popover.Target>
        <Button
          size="compact-sm"
          variant="subtle"
          loading={reveal.isPending}
          aria-label={`${shown ? "Hide" : "Reveal"} the publicApiKey of ${name}`}
          aria-expanded={shown !== null}
          onClick={() => (shown ? setShown(null) : open())}
        >
          {shown ? "Hide" : "Reveal"}
        </Button>
      </Popover.Target>
      <Popover.Dropdown role="dialog" aria-label={`publicApiKey of ${name}`}>
        {shown !== null && (
          <Stack gap="xs">
            <Text size="sm" fw={500}>
              publicApiKey of “{name}”
            </Text>
            <RevealedKey apiKey={props.apiKey} accountKey={props.accountKey} publicApiKey={shown} />
            <Group justify="flex-end">
              <Button size="compact-sm" variant="default" onClick={() => setShown(null)}>
                Hide
              </Button>
            </Group>
          </Stack>
        )}
      </Popover.Dropdown>
    </Popover>
  );
}
