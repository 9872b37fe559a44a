import { Badge, Tooltip, UnstyledButton } from "@mantine/core";
import { useLayoutEffect, useRef, useState } from "react";
import { useNavigation } from "../../navigation.ts";
import { WHOLE_BADGE } from "../../wholeBadge.ts";
import { middleCut } from "../keys/middleCut.ts";
import { widthIn } from "../keys/textWidth.ts";
import { type KeySyncMark, keySyncLook, keySyncWhy, reachesRemote } from "./syncState.ts";

/**
 * The Keys table's mark of a key of a linked account: a key that needs attention (conflict,
 * pending, gone from the remote, failed, local only) says so; any other key the link carries says
 * which remote it is synced with. Its whole meaning on hover, and a click that opens the Sync view
 * at that key (`keyId`; the view's top without it). A remote's name longer than the mark is cut
 * in its middle ("⇄ Team server o…(PROD)"): its end often tells profiles apart.
 */
export function SyncKeyBadge({ mark, keyId }: { mark: KeySyncMark | undefined; keyId?: string }) {
  const navigation = useNavigation();
  const synced = mark ? `⇄ ${mark.remote.name}` : "";
  const label = useMiddleCut(synced);
  if (!mark) return null;
  const attention = keySyncLook(mark.state);
  if (!attention && !reachesRemote(mark.state)) return null;
  const why = attention
    ? `${keySyncWhy(mark.state)} Remote: ${mark.remote.full}.`
    : `Synced with ${mark.remote.full}: a change made here reaches it at the next sync.`;
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
          ref={attention ? undefined : label.ref}
        >
          {attention ? attention.label : label.text}
        </Badge>
      </UnstyledButton>
    </Tooltip>
  );
}

/**
 * `text` as the badge (of a width it cannot pass) shows it: whole where it fits, else cut in its
 * middle to the label's width, measured in the label's font once it is drawn.
 */
function useMiddleCut(text: string) {
  const ref = useRef<HTMLDivElement>(null);
  const [cut, setCut] = useState<{ for: string; text: string } | null>(null);
  useLayoutEffect(() => {
    const root = ref.current;
    const label = root?.querySelector<HTMLElement>(".mantine-Badge-label");
    if (!root || !label || cut?.for === text) return;
    // The label's grid track grows with its text past the badge's max-width: the room is the
    // badge's own, less its padding; the badge's letter spacing is not in a canvas measure.
    const box = getComputedStyle(root);
    const room = root.clientWidth - Number.parseFloat(box.paddingLeft) - Number.parseFloat(box.paddingRight);
    const style = getComputedStyle(label);
    const spacing = Number.parseFloat(style.letterSpacing) || 0;
    const drawn = widthIn(style.font);
    const measure = (part: string) => drawn(part) + spacing * [...part].length;
    if (measure(text) <= room) return;
    setCut({ for: text, text: middleCut(text, room - 1, measure) });
  }, [text, cut]);
  return { ref, text: cut?.for === text ? cut.text : text };
}
