import { Button } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import type { useCopyPublicApiKey } from "./keyHooks.ts";

type CopyMutation = ReturnType<typeof useCopyPublicApiKey>;

export function copyNotice(copy: CopyMutation, accountKey: string, keyId: string, name: string): void {
  copy.mutate(
    { accountKey, key: keyId },
    {
      onSuccess: (result) =>
        notifications.show({
          color: "green",
          title: "Copied",
          message: `The publicApiKey of “${name}” is on the clipboard (cleared in ${Math.round(result.clearsAfterMs / 1000)} s).`,
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
