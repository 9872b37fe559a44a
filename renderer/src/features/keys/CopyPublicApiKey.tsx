import { Button, Code, Group } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useActingOn } from "../accounts/ActingOn.tsx";
import { useCopyPublicApiKey } from "./keyHooks.ts";

type CopyMutation = ReturnType<typeof useCopyPublicApiKey>;

/** Copies a key's publicApiKey; the notice names the key and `where` it is (useActingOn's words). */
export function copyNotice(
  copy: CopyMutation,
  accountKey: string,
  keyId: string,
  name: string,
  where: string,
): void {
  copy.mutate(
    { accountKey, key: keyId },
    {
      onSuccess: (result) =>
        notifications.show({
          color: "green",
          title: "Copied",
          message: `The publicApiKey of “${name}” (${where}) is on the clipboard (cleared in ${Math.round(result.clearsAfterMs / 1000)} s).`,
        }),
      onError: (error) =>
        notifications.show({ color: "red", title: "Copy failed", message: String(error.message) }),
    },
  );
}

/** Says, instead of handing it out, why a key's publicApiKey is not final yet (notFinalWhy). */
export function notFinalNotice(why: string): void {
  notifications.show({
    color: "yellow",
    title: "Not copied: the key is not on the remote yet",
    message: why,
  });
}

export function CopyButton(props: {
  name: string;
  loading: boolean;
  onCopy(): void;
  autoFocus?: boolean;
  /** Why the publicApiKey is not handed out now (it changes at the next sync); null: it is. */
  notFinal?: string | null;
}) {
  const notFinal = props.notFinal ?? null;
  return (
    <Button
      size="compact-sm"
      variant="light"
      {...(props.autoFocus && { "data-autofocus": true })}
      aria-label={`Copy the publicApiKey of ${props.name}`}
      loading={props.loading}
      // Disabled in look but focusable and hoverable: its title and a click say why.
      {...(notFinal !== null && { "data-disabled": true, "aria-disabled": true, title: notFinal })}
      onClick={() => (notFinal === null ? props.onCopy() : notFinalNotice(notFinal))}
    >
      Copy
    </Button>
  );
}

/**
 * A new key's whole publicApiKey as its create or roll answered it, with Copy focused: the one
 * place the renderer holds a key's secret without a Reveal.
 */
export function NewPublicApiKey(props: {
  apiKey: { key: string; name: string; publicApiKey: string };
  accountKey: string;
}) {
  const copy = useCopyPublicApiKey();
  const where = useActingOn(props.accountKey);
  const { apiKey } = props;
  return (
    <Group wrap="nowrap" gap="xs">
      <Code data-testid="new-public-api-key" style={{ wordBreak: "break-all", flex: 1 }}>
        {apiKey.publicApiKey}
      </Code>
      <CopyButton
        name={apiKey.name}
        loading={copy.isPending}
        autoFocus
        onCopy={() => copyNotice(copy, props.accountKey, apiKey.key, apiKey.name, where)}
      />
    </Group>
  );
}
