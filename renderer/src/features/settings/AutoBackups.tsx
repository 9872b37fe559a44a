import {
  Alert,
  Button,
  Code,
  Group,
  PasswordInput,
  Stack,
  Switch,
  Table,
  Text,
  VisuallyHidden,
} from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import {
  AUTO_BACKUPS_KEPT,
  type AutoBackupStatusDto,
  MIN_BACKUP_PASSPHRASE,
} from "../../../../shared/backupBridge.ts";
import { errorText } from "../../bridgeHooks.ts";
import { StrengthHint } from "../accounts/StrengthHint.tsx";
import { useAutoBackupStatus, useConfigureAutoBackups } from "./backupHooks.ts";
import { asSentence, newPassphraseError, sizeText } from "./backupText.ts";

/** The passphrase the automatic backups will use, twice; kept in the OS keychain by main. */
function EnableForm({ onCancel }: { onCancel(): void }) {
  const configure = useConfigureAutoBackups();
  const form = useForm({
    initialValues: { passphrase: "", confirmation: "" },
    validate: {
      passphrase: newPassphraseError,
      confirmation: (value, values) =>
        value === values.passphrase ? null : "The passphrases do not match: type the same one twice.",
    },
  });
  const submit = form.onSubmit(({ passphrase }) =>
    configure.mutate({ enabled: true, passphrase }, { onSuccess: onCancel }),
  );
  return (
    <form onSubmit={submit} noValidate data-testid="auto-backup-form">
      <Stack gap="sm" maw={460}>
        <PasswordInput
          label="Passphrase of the automatic backups"
          description="Kept in the OS keychain, so that Keydesk can seal a backup every day; you need it to restore one on another computer."
          required
          data-autofocus
          {...form.getInputProps("passphrase")}
        />
        <StrengthHint password={form.values.passphrase} username="" minLength={MIN_BACKUP_PASSPHRASE} />
        <PasswordInput label="Confirm passphrase" required {...form.getInputProps("confirmation")} />
        {configure.isError && (
          <Alert color="red.9" role="alert" title="Not switched on">
            {errorText(configure.error)}
          </Alert>
        )}
        <Group>
          <Button type="submit" loading={configure.isPending}>
            Switch on
          </Button>
          <Button variant="default" onClick={onCancel} disabled={configure.isPending}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function BackupList({ status, onRestore }: { status: AutoBackupStatusDto; onRestore(name: string): void }) {
  if (status.backups.length === 0) return <Text size="sm">No automatic backup yet.</Text>;
  return (
    <Table.ScrollContainer minWidth={360}>
      <Table data-testid="auto-backup-list" verticalSpacing={4}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Made on</Table.Th>
            <Table.Th>Size</Table.Th>
            <Table.Th>
              <VisuallyHidden>Actions</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {status.backups.map((backup) => (
            <Table.Tr key={backup.name}>
              <Table.Td>{new Date(backup.createdAt).toLocaleString()}</Table.Td>
              <Table.Td>{sizeText(backup.bytes)}</Table.Td>
              <Table.Td>
                <Button
                  size="compact-sm"
                  variant="light"
                  onClick={() => onRestore(backup.name)}
                  aria-label={`Restore the backup of ${new Date(backup.createdAt).toLocaleString()}`}
                >
                  Restore…
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/**
 * Automatic backups: a switch (off without an OS keychain, with the reason), the passphrase asked
 * once when switching on, and the backups there are, each restorable.
 */
export function AutoBackups({ onRestore }: { onRestore(name: string): void }) {
  const status = useAutoBackupStatus();
  const configure = useConfigureAutoBackups();
  const [enabling, setEnabling] = useState(false);
  if (!status.data) return status.isPending ? <Text size="sm">Loading…</Text> : null;
  const { data } = status;
  return (
    <Stack gap="sm" data-testid="auto-backups">
      <Switch
        label="Back up automatically every day"
        description={`While Keydesk runs, and at start when the last one is more than a day old. The newest ${AUTO_BACKUPS_KEPT} are kept.`}
        checked={data.enabled || enabling}
        disabled={!data.available || configure.isPending}
        onChange={(event) => {
          if (event.currentTarget.checked) setEnabling(true);
          else if (enabling) setEnabling(false);
          else configure.mutate({ enabled: false });
        }}
      />
      {!data.available && (
        <Text size="sm" data-testid="auto-backup-unavailable">
          {asSentence(data.unavailableReason)}
        </Text>
      )}
      {enabling && !data.enabled && <EnableForm onCancel={() => setEnabling(false)} />}
      {data.lastError && (
        <Alert color="red.9" role="alert" title="Automatic backup failed">
          {data.lastError}
        </Alert>
      )}
      <Text size="sm">
        Folder: <Code style={{ wordBreak: "break-all" }}>{data.folder}</Code>
      </Text>
      <BackupList status={data} onRestore={onRestore} />
    </Stack>
  );
}
