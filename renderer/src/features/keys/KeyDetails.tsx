import { Badge, Button, CopyButton as ClipCopy, Code, Drawer, Group, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useEffect, useState } from "react";
import type { ApiKeyView } from "../../../../shared/bridge.ts";
import { parseApiDateTime } from "../../../../shared/datetime.ts";
import { errorText } from "../../bridgeHooks.ts";
import { ActingOn, useActingOn } from "../accounts/ActingOn.tsx";
import { CopyButton, copyNotice, notFinalNotice } from "./CopyPublicApiKey.tsx";
import { KeyHistory } from "./KeyHistory.tsx";
import { STATE_COLORS } from "./KeyTable.tsx";
import { KeyUsageDetails } from "./KeyUsageDetails.tsx";
import { useCopyPublicApiKey, useKeyById, useRevealPublicApiKey } from "./keyHooks.ts";
import {
  expiringSoon,
  KEY_STATE_LABELS,
  keyState,
  localDateTime,
  relativeTime,
  retiringKey,
  stateExplanation,
  validToText,
} from "./keyState.ts";
import { RevealedKey } from "./RevealPopover.tsx";
import { RollLinks } from "./RollLinks.tsx";

function Field(props: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" fw={600} c="dimmed">
        {props.label}
      </Text>
      <div>{props.children}</div>
    </div>
  );
}

function When(props: { value: string | undefined; none: string; now: number }) {
  const time = props.value ? parseApiDateTime(props.value) : null;
  if (time === null) return <Text size="sm">{props.none}</Text>;
  return (
    <Text size="sm" title={props.value}>
      {localDateTime(time)} ({relativeTime(time, props.now)})
    </Text>
  );
}

/**
 * Every field of a key, its state in words, Copy for the key id and the publicApiKey (copied
 * without being shown), and the key's actions: Disable/Enable, Roll, Edit.
 */
export function KeyDetails(props: {
  apiKey: ApiKeyView | null;
  accountKey: string;
  onClose(): void;
  onEdit(key: ApiKeyView): void;
  onRoll(key: ApiKeyView): void;
  /** Opens another key's details (a rolled key's successor or predecessor). */
  onDetails(key: ApiKeyView): void;
  /** As the row's switch: a disable is confirmed first where the table's would be. */
  onToggle(key: ApiKeyView, enabled: boolean): void;
  /** Why its publicApiKey is not handed out now (its create has not reached the remote). */
  notFinal?: string | null;
}) {
  const notFinal = props.notFinal ?? null;
  // The usage as the page had it at once, then as the service answers it now; the other fields
  // stay the row's (kept up to date by edits in this view).
  const fresh = useKeyById(props.accountKey, props.apiKey?.key ?? null, { live: true }).data;
  const key =
    props.apiKey && fresh?.key === props.apiKey.key
      ? { ...props.apiKey, usage: fresh.usage, createdAt: fresh.createdAt }
      : props.apiKey;
  const reveal = useRevealPublicApiKey();
  const copy = useCopyPublicApiKey();
  const where = useActingOn(props.accountKey);
  const [revealed, setRevealed] = useState<string | null>(null);
  const now = Date.now();
  // biome-ignore lint/correctness/useExhaustiveDependencies: another key forgets the one revealed
  useEffect(() => setRevealed(null), [key?.key]);
  const state = key ? keyState(key, now) : "enabled";
  return (
    <Drawer
      opened={key !== null}
      onClose={props.onClose}
      position="right"
      size="md"
      title={key ? `Key “${key.name}”` : ""}
      closeButtonProps={{ "aria-label": "Close the details" }}
      returnFocus
    >
      {key && (
        <Stack gap="md" data-testid="key-details">
          {/* Above all it shows and does (Copy, Reveal, Disable, Roll, Edit): where they act. */}
          <ActingOn accountKey={props.accountKey} />
          <Field label="State">
            <Group gap="xs">
              <Badge variant="dot" color={STATE_COLORS[state]}>
                {KEY_STATE_LABELS[state]}
              </Badge>
              {retiringKey(key, now) && keyState(key, now) === "enabled" && (
                <Badge color="orange.9" variant="filled" tt="none" data-testid="key-retiring">
                  {validToText(key, now)}
                </Badge>
              )}
              {expiringSoon(key, now) && !retiringKey(key, now) && (
                <Badge color="orange.9" variant="filled">
                  Expiring soon
                </Badge>
              )}
            </Group>
            <Text size="sm" mt={4} data-testid="key-state-explanation">
              {stateExplanation(key, now)}
            </Text>
          </Field>
          <Field label="Name">
            <Text size="sm" style={{ wordBreak: "break-word" }}>
              {key.name}
            </Text>
          </Field>
          <RollLinks apiKey={key} accountKey={props.accountKey} onOpen={props.onDetails} />
          <Field label="Key id">
            <Group gap="xs" wrap="nowrap">
              <Code style={{ userSelect: "all" }}>{key.key}</Code>
              <ClipCopy value={key.key}>
                {({ copied, copy }) => (
                  <Button
                    size="compact-sm"
                    variant="light"
                    onClick={copy}
                    aria-label={`Copy the key id of ${key.name}`}
                  >
                    {copied ? "Copied" : "Copy"}
                  </Button>
                )}
              </ClipCopy>
            </Group>
          </Field>
          <Field label="publicApiKey">
            {revealed ? (
              <RevealedKey apiKey={key} accountKey={props.accountKey} publicApiKey={revealed} />
            ) : (
              <Group gap="xs" wrap="nowrap">
                <Code>{key.publicApiKeyHint}</Code>
                <CopyButton
                  name={key.name}
                  loading={copy.isPending}
                  onCopy={() => copyNotice(copy, props.accountKey, key.key, key.name, where)}
                  notFinal={notFinal}
                />
                <Button
                  size="compact-sm"
                  variant="subtle"
                  loading={reveal.isPending}
                  aria-label={`Reveal the publicApiKey of ${key.name}`}
                  {...(notFinal !== null && {
                    "data-disabled": true,
                    "aria-disabled": true,
                    title: notFinal,
                  })}
                  onClick={() =>
                    notFinal !== null
                      ? notFinalNotice(notFinal)
                      : reveal.mutate(
                          { accountKey: props.accountKey, key: key.key },
                          {
                            onSuccess: (full) => setRevealed(full.publicApiKey),
                            onError: (error) =>
                              notifications.show({
                                color: "red",
                                title: "Reveal failed",
                                message: errorText(error),
                              }),
                          },
                        )
                  }
                >
                  Reveal
                </Button>
              </Group>
            )}
          </Field>
          <Field label="Permissions">
            <Text size="sm">
              {key.permissions
                .map((p) => (p === "ALL" ? "ALL (every API)" : "TFA (2FA calls only)"))
                .join(", ")}
            </Text>
          </Field>
          <Field label="Allowed IPs">
            <Text size="sm">{key.allowedIPs?.length ? key.allowedIPs.join(", ") : "Any IP address"}</Text>
          </Field>
          <Field label="Valid from">
            <When value={key.validFrom} none="No start: valid from its creation" now={now} />
          </Field>
          <Field label="Valid to">
            <When value={key.validTo} none="No end: it does not expire" now={now} />
          </Field>
          <KeyUsageDetails apiKey={key} accountKey={props.accountKey} now={now} />
          <Group justify="flex-end">
            {!key.enabled && <Text size="sm">A disabled key is not rolled: enable it first.</Text>}
            <Button
              variant="light"
              color={key.enabled ? "red" : "green"}
              onClick={() => props.onToggle(key, !key.enabled)}
              data-testid="details-toggle"
            >
              {key.enabled ? "Disable" : "Enable"}
            </Button>
            <Button variant="light" disabled={!key.enabled} onClick={() => props.onRoll(key)}>
              Roll…
            </Button>
            <Button variant="light" onClick={() => props.onEdit(key)}>
              Edit
            </Button>
          </Group>
          <Field label="History">
            <KeyHistory accountKey={props.accountKey} keyId={key.key} />
          </Field>
        </Stack>
      )}
    </Drawer>
  );
}
