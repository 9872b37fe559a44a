import { Alert, Button, Checkbox, Group, Stack, Switch, Text, TextInput } from "@mantine/core";
import dayjs from "dayjs";
import { type FormEvent, useState } from "react";
import type { ValidationErrors } from "../../../../shared/apiErrors.ts";
import { nameProblems, type Permission } from "../../../../shared/apiKeyRules.ts";
import { parseApiDateTime } from "../../../../shared/datetime.ts";
import { normalizeIpEntry } from "../../../../shared/ip.ts";
import { BridgeFailure } from "../../bridgeHooks.ts";
import { EndsChoice, LocalDateTimeField } from "./EndsChoice.tsx";
import { type ExpiryChoice, initialChoice, windowProblem } from "./expiryPresets.ts";

/** The form of a key (create and edit): its fields, local checks, and the service's messages at them. */

let nextIpId = 1;
/** An allowed-IP entry with a stable id for React. */
export function ipEntry(value: string): { id: number; value: string } {
  return { id: nextIpId++, value };
}
const PICKER_FORMAT = "YYYY-MM-DD HH:mm:ss";

export interface KeyFormValues {
  name: string;
  /** One or both: a key may call every API (ALL) and be a TFA key too. */
  permissions: Permission[];
  /** Each entry with a stable id for React. */
  allowedIPs: { id: number; value: string }[];
  /** Local time as the picker holds it ("YYYY-MM-DD HH:mm:ss"), or null. */
  validFrom: string | null;
  validTo: string | null;
  enabled: boolean;
}

export function toPicker(apiDateTime: string | undefined): string | null {
  const time = apiDateTime ? parseApiDateTime(apiDateTime) : null;
  return time === null ? null : dayjs(time).format(PICKER_FORMAT);
}

/** The service's per-field messages, keyed by the form field they concern ("allowedIPs.1" → allowedIPs). */
function fieldErrors(error: unknown): {
  fields: Record<string, string>;
  general: string | null;
  title: string;
} {
  const title = failureTitle(error);
  if (!(error instanceof BridgeFailure)) return { fields: {}, general: error ? String(error) : null, title };
  const fields: Record<string, string> = {};
  const known = ["name", "permissions", "allowedIPs", "validFrom", "validTo", "enabled"];
  let unplaced = false;
  for (const [path, messages] of Object.entries(error.error.validationErrors ?? ({} as ValidationErrors))) {
    const field = path.split(".")[0] ?? path;
    if (known.includes(field)) {
      fields[field] = [fields[field], ...messages].filter(Boolean).join("; ");
    } else {
      unplaced = true;
    }
  }
  const general = Object.keys(fields).length === 0 || unplaced ? error.error.text : null;
  return { fields, general, title };
}

/** What a failed save was: only an answer of the service is a refusal. */
export function failureTitle(error: unknown): string {
  if (!(error instanceof BridgeFailure)) return "The key could not be saved";
  switch (error.error.messageId) {
    case "UNREACHABLE":
      return "The service is unreachable: nothing was saved";
    case "UNAUTHORIZED":
      return "The service refused the profile's credentials: nothing was saved";
    case "NO_KEYCHAIN":
    case "NOT_SUPPORTED":
    case "INVALID_ARGUMENT":
    case "GENERAL_ERROR":
      return "The key could not be saved";
    default:
      return "The service refused the key";
  }
}

function localProblems(values: KeyFormValues): {
  name: string | undefined;
  permissions: string | undefined;
  ips: (string | null)[];
  validTo: string | undefined;
} {
  const problems = nameProblems(values.name);
  const ips = values.allowedIPs.map(({ value: entry }) =>
    entry.trim() !== "" && normalizeIpEntry(entry) === null
      ? "Not an IPv4 or IPv6 address or CIDR range"
      : null,
  );
  return {
    name: problems.length ? `Name ${problems.join(", ")}` : undefined,
    permissions: values.permissions.length === 0 ? "Choose at least one permission" : undefined,
    ips,
    // The service's rule too (its message shows at Valid to as well): refused before sending.
    validTo: windowProblem(values.validFrom, values.validTo),
  };
}

/** Whether two forms hold the same values (the IP entries' ids aside). */
function sameValues(a: KeyFormValues, b: KeyFormValues): boolean {
  const plain = (v: KeyFormValues) => JSON.stringify({ ...v, allowedIPs: v.allowedIPs.map((e) => e.value) });
  return plain(a) === plain(b);
}

export function KeyForm(props: {
  initial: KeyFormValues;
  withEnabled: boolean;
  submitLabel: string;
  pending: boolean;
  serverError: unknown;
  onSubmit(values: KeyFormValues): void;
  onCancel(): void;
  /** Told whether the values differ from the initial ones. */
  /**
   * Set to whether the values differ from the initial ones, as each change is made: read by a
   * keydown listener (Esc) that may run before React has rendered the change.
   */
  dirtyRef?: { current: boolean };
}) {
  const [values, setValuesState] = useState<KeyFormValues>(props.initial);
  const { dirtyRef, initial } = props;
  // The ref is set at once (from the values as rendered), not when React gets to the update.
  const setValues = (change: (current: KeyFormValues) => KeyFormValues) => {
    if (dirtyRef) dirtyRef.current = !sameValues(change(values), initial);
    setValuesState(change);
  };
  const [checked, setChecked] = useState(false);
  // How the end was chosen: a preset sets validTo (shown in the picker); the form keeps only that.
  const [endChoice, setEndChoice] = useState<ExpiryChoice>(initialChoice(props.initial.validTo));
  const set = <F extends keyof KeyFormValues>(field: F, value: KeyFormValues[F]) =>
    setValues((current) => ({ ...current, [field]: value }));
  const local = localProblems(values);
  const server = fieldErrors(props.serverError);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setChecked(true);
    if (local.name || local.permissions || local.ips.some(Boolean) || local.validTo) return;
    props.onSubmit(values);
  };
  const setIp = (index: number, value: string) =>
    set(
      "allowedIPs",
      values.allowedIPs.map((entry, i) => (i === index ? { ...entry, value } : entry)),
    );
  return (
    <form onSubmit={submit} noValidate aria-label={props.submitLabel}>
      <Stack gap="sm">
        {server.general && (
          <Alert color="red" role="alert" title={server.title}>
            {server.general}
          </Alert>
        )}
        <TextInput
          label="Name"
          required
          data-autofocus
          value={values.name}
          onChange={(event) => set("name", event.currentTarget.value)}
          error={(checked && local.name) || server.fields.name}
        />
        <Checkbox.Group
          label="Permissions"
          description="A key may have both: ALL calls every API, TFA marks it a 2FA key."
          value={values.permissions}
          onChange={(value) => set("permissions", value as Permission[])}
          error={(checked && local.permissions) || server.fields.permissions}
        >
          <Group mt={4}>
            <Checkbox value="ALL" label="ALL (every API)" />
            <Checkbox value="TFA" label="TFA (2FA only)" />
          </Group>
        </Checkbox.Group>
        <fieldset style={{ border: 0, padding: 0, margin: 0 }}>
          <Text component="legend" size="sm" fw={500}>
            Allowed IPs
          </Text>
          <Text size="xs" c="dimmed">
            IPv4, IPv6 or CIDR ranges; none means any address.
          </Text>
          <Stack gap={6} mt={6}>
            {values.allowedIPs.map((entry, index) => (
              <Group key={entry.id} gap={6} align="flex-start" wrap="nowrap">
                <TextInput
                  style={{ flex: 1 }}
                  aria-label={`Allowed IP ${index + 1}`}
                  placeholder="203.0.113.0/24"
                  value={entry.value}
                  onChange={(event) => setIp(index, event.currentTarget.value)}
                  error={local.ips[index]}
                />
                <Button
                  variant="subtle"
                  color="red"
                  aria-label={`Remove allowed IP ${index + 1}`}
                  onClick={() =>
                    set(
                      "allowedIPs",
                      values.allowedIPs.filter((_, i) => i !== index),
                    )
                  }
                >
                  Remove
                </Button>
              </Group>
            ))}
            {server.fields.allowedIPs && (
              <Text size="sm" c="red" role="alert">
                {server.fields.allowedIPs}
              </Text>
            )}
            <Button
              variant="light"
              size="xs"
              w="fit-content"
              onClick={() => set("allowedIPs", [...values.allowedIPs, ipEntry("")])}
            >
              Add IP
            </Button>
          </Stack>
        </fieldset>
        <Group grow align="flex-start">
          <LocalDateTimeField
            label="Valid from"
            placeholder="No start"
            value={values.validFrom}
            onChange={(value) => set("validFrom", value)}
            error={server.fields.validFrom}
          />
          <LocalDateTimeField
            label="Valid to"
            placeholder="No end"
            value={values.validTo}
            onChange={(value) => {
              // A date picked (or cleared) by hand is no preset any more.
              setEndChoice(value === null ? "none" : "date");
              set("validTo", value);
            }}
            error={local.validTo || server.fields.validTo}
          />
        </Group>
        <EndsChoice
          id="key-form-ends"
          choice={endChoice}
          validTo={values.validTo}
          validFrom={values.validFrom}
          onChange={(choice, validTo) => {
            setEndChoice(choice);
            set("validTo", validTo);
          }}
        />
        {props.withEnabled && (
          <Switch
            label="Enabled"
            description="A disabled key authenticates no request."
            checked={values.enabled}
            onChange={(event) => set("enabled", event.currentTarget.checked)}
          />
        )}
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={props.onCancel}>
            Cancel
          </Button>
          <Button type="submit" loading={props.pending}>
            {props.submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
