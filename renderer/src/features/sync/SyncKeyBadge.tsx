import { Badge } from "@mantine/core";
import type { SyncKeyState } from "../../../../shared/sync.ts";
import { keySyncLook } from "./syncState.ts";

/** The Keys table's mark of a linked key that needs attention (conflict, pending, gone from the remote, failed). */
export function SyncKeyBadge({ state }: { state: SyncKeyState | undefined }) {
  const look = keySyncLook(state);
  if (!look) return null;
  return (
    <Badge size="xs" variant="dot" color={look.color} data-testid="key-sync-state" data-sync-state={state}>
      {look.label}
    </Badge>
  );
}
