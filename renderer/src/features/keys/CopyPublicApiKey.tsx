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

export function CopyButton(props: { name: string; loading: boolean; onCopy(): void; autoFocus?: boolean }) {
  return (
    <Button
      size="compact-sm"
      variant="light"
      {...(props.autoFocus && { "data-autofocus": true })}
      aria-label={`Copy the publicApiKey of ${props.name}`}
      loading={props.loading}
      onClick={props.onCopy}
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
