import { Button, Group, Text } from "@mantine/core";
import type { ApiKeyView } from "../../../../shared/bridge.ts";
import { predecessorOf, rollSearchOf, successorOf } from "../../../../shared/keyRollNames.ts";
import { useRollCandidates } from "./keyHooks.ts";

/**
 * A key's roll history in its details: a rolled key names its successor ("Replaced by …"), a
 * successor the key it replaced ("Replaces …"), each with a button opening that key's details.
 * Found through the service among the keys of the same base name, by the times the roll marks
 * wrote (shared/keyRollNames.ts), so it holds for keys rolled in any window or by another admin,
 * and along a chain of rolls; nothing is said when no key fits.
 */

function Link(props: { label: string; target: ApiKeyView; testId: string; onOpen(key: ApiKeyView): void }) {
  return (
    <Group gap="xs" wrap="nowrap" data-testid={props.testId}>
      {/* The name wraps and the button keeps its width: a long name never pushes Open out of view. */}
      <Text size="sm" style={{ wordBreak: "break-word", flex: 1, minWidth: 0 }}>
        {props.label} “{props.target.name}”
      </Text>
      <Button
        size="compact-sm"
        variant="light"
        style={{ flexShrink: 0 }}
        onClick={() => props.onOpen(props.target)}
        aria-label={`Open the details of ${props.target.name}`}
      >
        Open
      </Button>
    </Group>
  );
}

export function RollLinks(props: { apiKey: ApiKeyView; accountKey: string; onOpen(key: ApiKeyView): void }) {
  const { apiKey } = props;
  const candidates = useRollCandidates(props.accountKey, rollSearchOf(apiKey)).data;
  const successor = candidates ? successorOf(apiKey, candidates) : null;
  const predecessor = candidates ? predecessorOf(apiKey, candidates) : null;
  if (successor === null && predecessor === null) return null;
  return (
    <div>
      <Text size="xs" fw={600} c="dimmed">
        Roll
      </Text>
      {successor && (
        <Link label="Replaced by" target={successor} testId="key-replaced-by" onOpen={props.onOpen} />
      )}
      {predecessor && (
        <Link label="Replaces" target={predecessor} testId="key-replaces" onOpen={props.onOpen} />
      )}
    </div>
  );
}
