import { Button, Group, Text } from "@mantine/core";
import type { ApiKeyView } from "../../../../shared/bridge.ts";
import {
  predecessorNameOf,
  predecessorOf,
  successorNameOf,
  successorOf,
} from "../../../../shared/keyRollNames.ts";
import { useKeysNamed } from "./keyHooks.ts";

/**
 * A key's roll history in its details: a rolled key names its successor ("Replaced by …"), a
 * successor the key it replaced ("Replaces …"), each with a button opening that key's details.
 * Found through the service by exact name (shared/keyRollNames.ts), so it holds for keys rolled
 * in any window or by another admin; nothing is said when no key fits.
 */

function Link(props: { label: string; target: ApiKeyView; testId: string; onOpen(key: ApiKeyView): void }) {
  return (
    <Group gap="xs" wrap="nowrap" data-testid={props.testId}>
      <Text size="sm" style={{ wordBreak: "break-word" }}>
        {props.label} “{props.target.name}”
      </Text>
      <Button
        size="compact-sm"
        variant="light"
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
  const successors = useKeysNamed(props.accountKey, successorNameOf(apiKey)).data;
  const predecessors = useKeysNamed(props.accountKey, predecessorNameOf(apiKey)).data;
  const successor = successors ? successorOf(apiKey, successors) : null;
  const predecessor = predecessors ? predecessorOf(apiKey, predecessors) : null;
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
