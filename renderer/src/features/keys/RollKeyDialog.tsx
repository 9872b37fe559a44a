import { Alert, Button, Group, Modal, NumberInput, Select, Stack, Text } from "@mantine/core";
import { useState } from "react";
import type { ApiKeyView } from "../../../../shared/bridge.ts";
import { parseApiDateTime } from "../../../../shared/datetime.ts";
import type { RetirementDto, RollResultDto } from "../../../../shared/keyLifecycleBridge.ts";
import { defaultSuccessorEnd } from "../../../../shared/keyRollNames.ts";
import { errorText } from "../../bridgeHooks.ts";
import { formatLocal, formatRelative } from "../../time.ts";
import { ActingOn } from "../accounts/ActingOn.tsx";
import { SyncedChangeNotice } from "../sync/SyncedChangeNotice.tsx";
import type { SyncRemote } from "../sync/syncState.ts";
import { NewPublicApiKey } from "./CopyPublicApiKey.tsx";
import { EndsChoice, LocalDateTimeField } from "./EndsChoice.tsx";
import type { ExpiryChoice } from "./expiryPresets.ts";
import { toPicker } from "./KeyForm.tsx";
import { toApi } from "./keyEdits.ts";
import { useRetireKey, useRollKey } from "./keyHooks.ts";
import { validToText } from "./keyState.ts";

/**
 * Roll a key: choose the new key's end (the key form's presets) and how long the old key keeps
 * working (the grace), then see the successor's publicApiKey once (with Copy) and what became of
 * the old key: renamed "… (rolled <time>)" and ending at…, its earlier end kept, or not changed
 * (the remote refused), with Retry, which only tries that update again.
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
  // The table's wording (retiringText), or "expired …" for an end already past.
  const retiring = validToText({ enabled: true, name: props.name, validTo: retirement.validTo }, Date.now());
  return (
    <Text size="sm" data-testid="roll-retirement">
      {retirement.state === "shortened"
        ? `The old key, now “${props.name}”, is ${retiring}: it keeps working until ${formatLocal(end)}, then stops.`
        : `The old key, now “${props.name}”, keeps its earlier end: ${retiring} (${formatLocal(end)}).`}
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
        The new key “{successor.name}” is ready, with the same name, permissions and allowed IPs. Its
        publicApiKey, for the apps to switch to (Reveal in its row shows it again):
      </Text>
      <NewPublicApiKey apiKey={successor} accountKey={props.accountKey} />
      <RetirementLine name={old.name} retirement={retirement} />
      {retirement.state === "failed" && (
        <Alert color="red" title="The old key was not shortened" data-testid="roll-retire-failed">
          <Stack gap="xs">
            <Text size="sm">
              “{old.name}” keeps its name and works as before: {retirement.error.text}. The new key exists;
              Retry only renames the old key and sets its end (
              {formatLocal(parseApiDateTime(retirement.retireAt) as number)}).
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
                    {
                      accountKey: props.accountKey,
                      key: old.key,
                      retireAt: retirement.retireAt,
                      rolledAt: retirement.rolledAt,
                    },
                    {
                      onSuccess: ({ old: after, ...state }) =>
                        props.onRetried({ successor, old: after, retirement: state }),
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

/** The new key's end the dialog opens with, and why it is not the old key's (null: it is). */
function initialEnd(
  key: ApiKeyView,
  now: number,
): { choice: ExpiryChoice; validTo: string | null; why: string | null } {
  const proposal = defaultSuccessorEnd(key.validTo, now);
  if (proposal.validTo !== null) return { choice: "date", validTo: toPicker(proposal.validTo), why: null };
  const end = proposal.oldEnd;
  if (end === null) return { choice: "none", validTo: null, why: null };
  const when = formatRelative(end, now);
  return {
    choice: "none",
    validTo: null,
    why:
      end > now
        ? `The old key ends ${when}; the new key would end with it, so it has no end unless you choose one.`
        : `The old key ended ${when}; the new key would be expired at once, so it has no end unless you choose one.`,
  };
}

/** The choices before the roll, for one key (remounted for another). */
function RollForm(props: {
  apiKey: ApiKeyView;
  pending: boolean;
  error: unknown;
  onRoll(choice: { graceMinutes: number; validTo: string | null }): void;
  onCancel(): void;
}) {
  const [grace, setGrace] = useState(DEFAULT_GRACE);
  const [customHours, setCustomHours] = useState<number | string>(48);
  const [initial] = useState(() => initialEnd(props.apiKey, Date.now()));
  const [endChoice, setEndChoice] = useState(initial.choice);
  const [endValue, setEndValue] = useState(initial.validTo);
  const graceMinutes = grace === "custom" ? Math.round(Number(customHours) * 60) : Number(grace);
  const validFrom = toPicker(props.apiKey.validFrom);
  const endMissing = endChoice === "date" && endValue === null;
  return (
    <Stack>
      <Text size="sm">
        A new key is created under this key's name, with the same permissions and allowed IPs. This key is
        renamed {"“… (rolled <date and time of the roll, UTC>)”"} and keeps working for the grace period, so
        that applications can switch over, then stops.
      </Text>
      <EndsChoice
        id="roll-ends"
        label="New key ends"
        choice={endChoice}
        validTo={endValue}
        validFrom={validFrom}
        onChange={(choice, validTo) => {
          setEndChoice(choice);
          setEndValue(validTo);
        }}
      />
      {endChoice === "date" && (
        <LocalDateTimeField
          label="New key valid to"
          placeholder="Pick the end"
          value={endValue}
          onChange={(value) => {
            setEndChoice(value === null ? "none" : "date");
            setEndValue(value);
          }}
          error={undefined}
        />
      )}
      {initial.why && (
        <Alert color="yellow" data-testid="roll-end-why">
          {initial.why}
        </Alert>
      )}
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
      {props.error !== null && props.error !== undefined && (
        <Alert color="red" title="The key was not rolled">
          {errorText(props.error)} Nothing was changed.
        </Alert>
      )}
      <Group justify="flex-end" className="kd-sticky-footer">
        <Button variant="default" onClick={props.onCancel}>
          Cancel
        </Button>
        <Button
          onClick={() => props.onRoll({ graceMinutes, validTo: toApi(endValue) })}
          loading={props.pending}
          disabled={!Number.isFinite(graceMinutes) || graceMinutes < 0 || endMissing}
        >
          Roll key
        </Button>
      </Group>
    </Stack>
  );
}

export function RollKeyDialog(props: {
  apiKey: ApiKeyView | null;
  accountKey: string;
  /** The remote the roll reaches at the next sync, when the key is synced. */
  syncedTo?: SyncRemote | null;
  onClose(): void;
}) {
  const roll = useRollKey();
  const [result, setResult] = useState<RollResultDto | null>(null);
  const key = props.apiKey;
  const close = () => {
    roll.reset();
    setResult(null);
    props.onClose();
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
          <ActingOn accountKey={props.accountKey} />
          <RollOutcome result={result} accountKey={props.accountKey} onRetried={setResult} />
          <Group justify="flex-end" className="kd-sticky-footer">
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : (
        key && (
          <Stack>
            <ActingOn accountKey={props.accountKey} />
            <SyncedChangeNotice remote={props.syncedTo} />
            <RollForm
              key={key.key}
              apiKey={key}
              pending={roll.isPending}
              error={roll.error}
              onCancel={close}
              onRoll={(choice) =>
                roll.mutate(
                  { accountKey: props.accountKey, key: key.key, ...choice },
                  { onSuccess: setResult },
                )
              }
            />
          </Stack>
        )
      )}
    </Modal>
  );
}
