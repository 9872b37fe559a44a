import { Alert, Text } from "@mantine/core";
import { type SyncRemote, syncedChangeNotice } from "./syncState.ts";

/**
 * The line a change to a synced key says in the dialog that makes it (edit, enable or disable,
 * roll): the remote it reaches at the next sync. Nothing for a key no link syncs.
 */
export function SyncedChangeNotice({ remote }: { remote: SyncRemote | null | undefined }) {
  if (!remote) return null;
  return (
    <Alert color="blue" variant="light" p="xs" data-testid="synced-change-notice">
      <Text size="sm">{syncedChangeNotice(remote)}</Text>
    </Alert>
  );
}
