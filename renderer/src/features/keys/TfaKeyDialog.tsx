import { Button, Group, Modal, Stack, Text, TextInput } from "@mantine/core";
import dayjs from "dayjs";
import { type FormEvent, useState } from "react";
import { nameProblems } from "../../../../shared/apiKeyRules.ts";
import { ActingOn } from "../accounts/ActingOn.tsx";
import type { SyncRemote } from "../sync/syncState.ts";

/** The name a quick TFA key gets unless the admin types another: recognizable by when it was made. */
function defaultTfaKeyName(now: number): string {
  return `TFA key ${dayjs(now).format("YYYY-MM-DD HH:mm")}`;
}

/** Asks the quick TFA key's name (prefilled), then creates it and copies its publicApiKey. */
export function TfaKeyDialog(props: {
  opened: boolean;
  accountKey: string;
  /** The remote of the account's link: the key is copied once it has it (its value changes there). */
  syncedTo: SyncRemote | null;
  pending: boolean;
  error: string | null;
  onClose(): void;
  onCreate(name: string): void;
}) {
  return (
    <Modal opened={props.opened} onClose={props.onClose} title="New TFA key">
      {props.opened && <TfaKeyForm {...props} />}
    </Modal>
  );
}

function TfaKeyForm(props: {
  accountKey: string;
  syncedTo: SyncRemote | null;
  pending: boolean;
  error: string | null;
  onClose(): void;
  onCreate(name: string): void;
}) {
  const [name, setName] = useState(() => defaultTfaKeyName(Date.now()));
  const problems = nameProblems(name);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (problems.length === 0) props.onCreate(name.trim());
  };
  return (
    <form onSubmit={submit} aria-label="New TFA key">
      <Stack gap="sm">
        <ActingOn accountKey={props.accountKey} />
        <Text size="sm">
          A key with the TFA permission only (send and verify 2FA PINs).{" "}
          {props.syncedTo
            ? `Its publicApiKey is copied once ${props.syncedTo.full} has the key: the remote gives it its own value.`
            : "Its publicApiKey is copied once it is created."}
        </Text>
        <TextInput
          label="Name"
          required
          data-autofocus
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          onFocus={(event) => event.currentTarget.select()}
          error={problems.length ? `Name ${problems.join(", ")}` : props.error}
        />
        <Group justify="flex-end" className="kd-sticky-footer">
          <Button variant="default" onClick={props.onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={props.pending}>
            Create and copy
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
