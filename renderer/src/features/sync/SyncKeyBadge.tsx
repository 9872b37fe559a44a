import { Badge, Tooltip, UnstyledButton } from "@mantine/core";
import { useNavigation } from "../../navigation.ts";
import { WHOLE_BADGE } from "../../wholeBadge.ts";
import { type KeySyncMark, keySyncLook, keySyncWhy, reachesRemote } from "./syncState.ts";

/**
 * The Keys table's mark of a key of a linked account: a key that needs attention (conflict,
 * pending, gone from the remote, failed, local only) says so; any other key the link carries says
 * which remote it is synced with. Its whole meaning on hover, and a click that opens the Sync view
 * at that key (`keyId`; the view's top without it).
 */
export function SyncKeyBadge({ mark, keyId }: { mark: KeySyncMark | undefined; keyId?: string }) {
  const navigation = useNavigation();
  if (!mark) return null;
  const attention = keySyncLook(mark.state);
  if (!attention && !reachesRemote(mark.state)) return null;
  const why = attention
    ? `${keySyncWhy(mark.state)} Remote: ${mark.remote.full}.`
    : `Synced with ${mark.remote.full}: a change made here reaches it at the next sync.`;
  const label = attention?.label ?? `⇄ ${mark.remote.name}`;
  return (
    <Tooltip label={`${why} Click to open it in the Sync view.`} multiline w={280} withinPortal>
      <UnstyledButton
        onClick={() => navigation.open("sync", keyId === undefined ? undefined : { syncKey: keyId })}
        aria-label={`${attention ? attention.label : "Synced"}: ${why} Open in the Sync view`}
        data-tooltip
        style={{ display: "inline-flex", flexShrink: 0 }}
      >
        <Badge
          size="xs"
          variant={attention ? "dot" : "light"}
          color={attention?.color ?? "blue.3"}
          data-testid={attention ? "key-sync-state" : "key-synced"}
          data-sync-state={mark.state}
          // A state is never cut; a remote's name longer than the badge is (whole in the tooltip).
          styles={attention ? WHOLE_BADGE : { root: { maxWidth: 120 } }}
          tt={attention ? undefined : "none"}
          style={{ cursor: "pointer" }}
        >
          {label}
        </Badge>
      </UnstyledButton>
    </Tooltip>
  );
}
