import { Badge, Tooltip, UnstyledButton } from "@mantine/core";
import type { SyncKeyState } from "../../../../shared/sync.ts";
import { useNavigation } from "../../navigation.ts";
import { WHOLE_BADGE } from "../../wholeBadge.ts";
import { keySyncLook, keySyncWhy } from "./syncState.ts";

/**
 * The Keys table's mark of a linked key that needs attention (conflict, pending, gone from the
 * remote, failed): its whole label, why on hover, and a click that opens the Sync view at that key
 * (`keyId`; the view's top without it).
 */
export function SyncKeyBadge({ state, keyId }: { state: SyncKeyState | undefined; keyId?: string }) {
  const navigation = useNavigation();
  const look = keySyncLook(state);
  if (!look || !state) return null;
  const why = keySyncWhy(state);
  return (
    <Tooltip label={`${why} Click to open it in the Sync view.`} multiline w={260} withinPortal>
      <UnstyledButton
        onClick={() => navigation.open("sync", keyId === undefined ? undefined : { syncKey: keyId })}
        aria-label={`${look.label}: ${why} Open in the Sync view`}
        data-tooltip
        style={{ display: "inline-flex", flexShrink: 0 }}
      >
        <Badge
          size="xs"
          variant="dot"
          color={look.color}
          data-testid="key-sync-state"
          data-sync-state={state}
          styles={WHOLE_BADGE}
          style={{ cursor: "pointer" }}
        >
          {look.label}
        </Badge>
      </UnstyledButton>
    </Tooltip>
  );
}
