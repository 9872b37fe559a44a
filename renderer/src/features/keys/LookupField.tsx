import { Button, Code, Group, Text, TextInput } from "@mantine/core";
import { type FormEvent, useState } from "react";
import type { ApiKeyView } from "../../../../shared/bridge.ts";
import { errorText } from "../../bridgeHooks.ts";
import { useLookupKey } from "./keyHooks.ts";
import { KEY_STATE_LABELS, keyState } from "./keyState.ts";

export function LookupField(props: { accountKey: string; onOpen(key: ApiKeyView): void }) {
  const lookup = useLookupKey();
  const [text, setText] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (text.trim()) lookup.mutate({ accountKey: props.accountKey, publicApiKey: text.trim() });
  };
  const found = lookup.data;
  return (
    <form onSubmit={submit} aria-label="Find a key by its publicApiKey">
      <Group align="flex-end" gap="xs">
        <TextInput
          style={{ flex: 1 }}
          label="Paste a publicApiKey"
          placeholder="The full publicApiKey an application uses"
          value={text}
          onChange={(event) => {
            setText(event.currentTarget.value);
            lookup.reset();
          }}
        />
        <Button type="submit" variant="light" loading={lookup.isPending}>
          Find key
        </Button>
      </Group>
      <div aria-live="polite" data-testid="lookup-result">
        {lookup.isError && (
          <Text size="sm" c="red" mt={4}>
            {errorText(lookup.error)}
          </Text>
        )}
        {lookup.isSuccess && found === null && (
          <Text size="sm" mt={4}>
            No key of this account has that publicApiKey.
          </Text>
        )}
        {found && (
          <Group gap="xs" mt={4}>
            <Text size="sm">
              It belongs to <strong>{found.name}</strong> (<Code>{found.key}</Code>,{" "}
              {KEY_STATE_LABELS[keyState(found, Date.now())].toLowerCase()}).
            </Text>
            <Button size="compact-sm" variant="subtle" onClick={() => props.onOpen(found)}>
              Open
            </Button>
          </Group>
        )}
      </div>
    </form>
  );
}
