import { Button, Code, Group, Popover, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useRef, useState } from "react";
import type { ApiKeyView } from "../../../../shared/bridge.ts";
import { errorText } from "../../bridgeHooks.ts";
import { useActingOn } from "../accounts/ActingOn.tsx";
import { CopyButton, copyNotice, notFinalNotice } from "./CopyPublicApiKey.tsx";
import { useCopyPublicApiKey, useRevealPublicApiKey } from "./keyHooks.ts";

/**
 * The whole publicApiKey, selectable, with Copy beside it. It is fetched only on request and
 * forgotten when the panel closes.
 */
export function RevealedKey(props: { apiKey: ApiKeyView; accountKey: string; publicApiKey: string }) {
  const copy = useCopyPublicApiKey();
  const where = useActingOn(props.accountKey);
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
        onCopy={() => copyNotice(copy, props.accountKey, props.apiKey.key, props.apiKey.name, where)}
      />
    </Group>
  );
}

/** A row's Reveal: a popover over the table, never drawn into the neighbouring rows. */
export function RevealButton(props: {
  apiKey: ApiKeyView;
  accountKey: string;
  /** Why the publicApiKey is not shown now (it changes at the next sync); null: it is. */
  notFinal?: string | null;
}) {
  const notFinal = props.notFinal ?? null;
  const reveal = useRevealPublicApiKey();
  const [shown, setShown] = useState<string | null>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const name = props.apiKey.name;
  // The button is made anew when the popover opens or closes: the focus goes back to it.
  const close = () => {
    setShown(null);
    requestAnimationFrame(() => buttonRef.current?.focus());
  };
  const open = () =>
    reveal.mutate(
      { accountKey: props.accountKey, key: props.apiKey.key },
      {
        onSuccess: (full) => setShown(full.publicApiKey),
        onError: (error) =>
          notifications.show({ color: "red", title: "Reveal failed", message: errorText(error) }),
      },
    );
  const button = (
    <Button
      ref={buttonRef}
      size="compact-sm"
      variant="subtle"
      loading={reveal.isPending}
      aria-label={`${shown ? "Hide" : "Reveal"} the publicApiKey of ${name}`}
      aria-expanded={shown !== null}
      {...(notFinal !== null && { "data-disabled": true, "aria-disabled": true, title: notFinal })}
      onClick={() => (notFinal !== null ? notFinalNotice(notFinal) : shown ? close() : open())}
    >
      {/* Both words in one grid cell, the other one hidden: the button is as wide either way, so
          the row's actions do not move under the pointer when Reveal becomes Hide. */}
      <span className="kd-same-width">
        <span aria-hidden="true" data-shown={!shown}>
          Reveal
        </span>
        <span aria-hidden="true" data-shown={Boolean(shown)}>
          Hide
        </span>
      </span>
    </Button>
  );
  // Closed, the row holds a plain button: a popover per row (its floating position hooks) costs
  // the first rows of a large list their time; it is made when opened.
  if (shown === null) return button;
  return (
    <Popover
      opened
      onChange={(opened) => !opened && close()}
      width={360}
      position="bottom-end"
      withArrow
      trapFocus
      shadow="md"
    >
      <Popover.Target>{button}</Popover.Target>
      <Popover.Dropdown role="dialog" aria-label={`publicApiKey of ${name}`}>
        <Stack gap="xs">
          <Text size="sm" fw={500}>
            publicApiKey of “{name}”
          </Text>
          <RevealedKey apiKey={props.apiKey} accountKey={props.accountKey} publicApiKey={shown} />
          <Group justify="flex-end">
            <Button size="compact-sm" variant="default" onClick={close}>
              Hide
            </Button>
          </Group>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
