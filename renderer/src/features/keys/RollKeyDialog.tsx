import { Alert, Button, Group, Modal, NumberInput, Select, Stack, Text } from "@mantine/core";
import { useState } from "react";
import type { ApiKeyView } from "../../../../shared/bridge.ts";
import { parseApiDateTime } from "../../../../shared/datetime.ts";
import type { RetirementDto, RollResultDto } from "../../../../shared/keyLifecycleBridge.ts";
import { errorText } from "../../bridgeHooks.ts";
import { formatLocal, formatRelative } from "../../time.ts";
import { NewPublicApiKey } from "./CopyPublicApiKey.tsx";
import { useRetireKey, useRollKey } from "./keyHooks.ts";
import { rememberRetiring } from "./retiringKeys.ts";

/**
 * Roll a key: pick how long the old key keeps working (the grace), then see the successor's
 * publicApiKey once (with Copy) and what became of the old key: ends at…, already ended earlier,
 * or not shortened (the remote refused), with Retry, which only tries the shortening again.
 */

const GRACE_OPTIONS = [
  { value: "0", label: "Now (no overlap)" },
  { value: "60", label: "1 hour" },
  { value: "1440", label: "24 hours" },
  { value: "10080", label: "7 days" },
  { value: "custom", label: "Custom (hours)" },
];
const DEFAULT_GRACE = "1440";

function RetirementLine(props: { name: string; retirement: RetirementDto }) {
  const { retirement } = props;
  if (retirement.state === "failed") return null;
  const end = parseApiDateTime(retirement.validTo) as number;
  const when = `${formatLocal(end)} (${formatRelative(end, Date.now())})`;
  return (
    <Text size="sm" data-testid="roll-retirement">
      {retirement.state === "shortened"
        ? `“${props.name}” keeps working until ${when}, then stops: retiring.`
        : `“${props.name}” already ends earlier, at ${when}; its end was kept.`}
    </Text>
  );
}

function RollOutcome(props: {
  result: RollResultDto;
  accountKey: string;
  onRetried(result: RollResultDto): void;
}) {
  const retire = useRetireKey();
  const { successor, old, retirement } = props.result;
  return (
    <Stack>
      <Text size="sm">
        The successor “{successor.name}” is ready, with the same permissions, allowed IPs and validity. Its
        publicApiKey, for the apps to switch to (Reveal in its row shows it again):
      </Text>
      <NewPublicApiKey apiKey={successor} accountKey={props.accountKey} />
      <RetirementLine name={old.name} retirement={retirement} />
      {retirement.state === "failed" && (
        <Alert color="red" title="The old key was not shortened" data-testid="roll-retire-failed">
          <Stack gap="xs">
            <Text size="sm">
              “{old.name}” keeps working as before: {retirement.error.text}. The successor exists; Retry only
              sets the old key's end ({formatLocal(parseApiDateTime(retirement.retireAt) as number)}).
            </Text>
            {retire.error && <Text size="sm">Retry failed: {errorText(retire.error)}</Text>}
            <Group>
              <Button
                size="compact-sm"
                color="red"
                variant="light"
                loading={retire.isPending}
                onClick={() =>
                  retire.mutate(
                    { accountKey: props.accountKey, key: old.key, retireAt: retirement.retireAt },
                    {
                      onSuccess: ({ old: after, ...state }) => {
                        if (state.state === "shortened") rememberRetiring(after.key, state.validTo);
                        props.onRetried({ successor, old: after, retirement: state });
                      },
                    },
                  )
                }
              >
                Retry
              </Button>
            </Group>
          </Stack>
        </Alert>
      )}
    </Stack>
  );
}

export function RollKeyDialog(props: { apiKey: ApiKeyView | null; accountKey: string; onClose(): void }) {
  const roll = useRollKey();
  const [grace, setGrace] = useState(DEFAULT_GRACE);
  const [customHours, setCustomHours] = useState<number | string>(48);
  const [result, setResult] = useState<RollResultDto | null>(null);
  const key = props.apiKey;
  const close = () => {
    roll.reset();
    setResult(null);
    setGrace(DEFAULT_GRACE);
    props.onClose();
  };
  const graceMinutes = grace === "custom" ? Math.round(Number(customHours) * 60) : Number(grace);
  const submit = () => {
    if (!key) return;
    roll.mutate(
      { accountKey: props.accountKey, key: key.key, graceMinutes },
      {
        onSuccess: (answer) => {
          if (answer.retirement.state === "shortened")
            rememberRetiring(answer.old.key, answer.retirement.validTo);
          setResult(answer);
        },
      },
    );
  };
  return (
    <Modal
      opened={key !== null}
      onClose={close}
      title={result ? "Key rolled" : `Roll “${key?.name ?? ""}”`}
      size="lg"
    >
      {result ? (
        <Stack>
          <RollOutcome result={result} accountKey={props.accountKey} onRetried={setResult} />
          <Group justify="flex-end">
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <Stack>
          <Text size="sm">
            A successor is created with the same permissions, allowed IPs and validity; this key keeps working
            for the grace period, so that applications can switch over, then stops.
          </Text>
          <Group align="flex-end">
            <Select
              label="Old key keeps working for"
              data={GRACE_OPTIONS}
              value={grace}
              allowDeselect={false}
              onChange={(value) => setGrace(value ?? DEFAULT_GRACE)}
              w={220}
            />
            {grace === "custom" && (
              <NumberInput
                label="Hours"
                min={0}
                max={366 * 24}
                value={customHours}
                onChange={setCustomHours}
                w={120}
              />
            )}
          </Group>
          {roll.error && (
            <Alert color="red" title="The key was not rolled">
              {errorText(roll.error)} Nothing was changed.
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button
              onClick={submit}
              loading={roll.isPending}
              disabled={!Number.isFinite(graceMinutes) || graceMinutes < 0}
            >
              Roll key
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
