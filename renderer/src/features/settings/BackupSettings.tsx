import { Button, Card, Group, Stack, Text, Title } from "@mantine/core";
import { useState } from "react";
import { AutoBackups } from "./AutoBackups.tsx";
import { BackupDialog } from "./BackupDialog.tsx";
import { RestoreDialog } from "./RestoreDialog.tsx";

/** Settings → Backup and restore of the Local data: the two dialogs and the automatic backups. */
export function BackupSettings() {
  const [backingUp, setBackingUp] = useState(false);
  // null: closed; "": a file to choose; a name: that automatic backup.
  const [restoring, setRestoring] = useState<string | null>(null);
  return (
    <Card withBorder component="section" aria-labelledby="backup-title" data-testid="backup-settings">
      <Stack gap="sm">
        <Title order={3} id="backup-title">
          Backup and restore
        </Title>
        <Text size="sm">
          A backup is one file holding the Local service's data and its data key, sealed with a passphrase:
          keep it somewhere else than this computer. Remote profiles' data stays on their servers.
        </Text>
        <Group gap="sm">
          <Button variant="light" onClick={() => setBackingUp(true)}>
            Back up…
          </Button>
          <Button variant="light" color="orange" onClick={() => setRestoring("")}>
            Restore…
          </Button>
        </Group>
        <Title order={4}>Automatic backups</Title>
        <AutoBackups onRestore={(name) => setRestoring(name)} />
      </Stack>
      <BackupDialog opened={backingUp} onClose={() => setBackingUp(false)} />
      <RestoreDialog
        opened={restoring !== null}
        automatic={restoring || undefined}
        onClose={() => setRestoring(null)}
      />
    </Card>
  );
}
