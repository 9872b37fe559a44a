import { Alert, Button, Checkbox, Group, Stack, Switch, Text, TextInput } from "@mantine/core";
import { FORM_INDEX, useForm } from "@mantine/form";
import dayjs from "dayjs";
import { useState } from "react";
import type { ValidationErrors } from "../../../../shared/apiErrors.ts";
import { nameProblems, PERMISSIONS, type Permission } from "../../../../shared/apiKeyRules.ts";
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
function failureTitle(error: unknown): string {
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

/** The form's own checks, as @mantine/form errors: the service would refuse each of these. */
function localProblems(values: KeyFormValues): Record<string, string> {
  const errors: Record<string, string> = {};
  const problems = nameProblems(values.name);
  if (problems.length) errors.name = `Name ${problems.join(", ")}`;
  if (values.permissions.length === 0) errors.permissions = "Choose at least one permission";
  values.allowedIPs.forEach(({ value: entry }, index) => {
    if (entry.trim() !== "" && normalizeIpEntry(entry) === null) {
      errors[`allowedIPs.${index}.value`] = "Not an IPv4 or IPv6 address or CIDR range";
    }
  });
  // The service's rule too (its message shows at Valid to as well): refused before sending.
  const window = windowProblem(values.validFrom, values.validTo);
  if (window) errors.validTo = window;
  return errors;
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
  /**
   * Set to whether the values differ from the initial ones, as each change is made: read by a
   * keydown listener (Esc) that may run before React has rendered the change.
   */
  dirtyRef?: { current: boolean };
}) {
  const { dirtyRef, initial } = props;
  const form = useForm<KeyFormValues>({
    initialValues: initial,
    validate: localProblems,
    // An address is checked as it is typed (the window too, below); name and permissions once Save was pressed.
    validateInputOnChange: [`allowedIPs.${FORM_INDEX}.value`],
    // The dirty flag is set as each change is made (a keydown listener may read it before React renders).
    onValuesChange: (values) => {
      if (dirtyRef) dirtyRef.current = !sameValues(values, initial);
    },
  });
  const values = form.getValues();
  // How the end was chosen: a preset sets validTo (shown in the picker); the form keeps only that.
  const [endChoice, setEndChoice] = useState<ExpiryChoice>(initialChoice(initial.validTo));
  const server = fieldErrors(props.serverError);
  /** The form's error at a field, else the service's message for it. */
  const errorAt = (field: keyof KeyFormValues): string | undefined => {
    const own = form.errors[field];
    return typeof own === "string" ? own : server.fields[field];
  };
  const submit = form.onSubmit((checked) => props.onSubmit(checked));
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
          {...form.getInputProps("name")}
          error={errorAt("name")}
        />
        <Checkbox.Group
          label="Permissions"
          // At least one is needed, and none is preselected on a new key: marked like Name.
          withAsterisk
          description="A key may have both: ALL calls every API, TFA marks it a 2FA key."
          value={values.permissions}
          onChange={(value) =>
            form.setFieldValue(
              "permissions",
              PERMISSIONS.filter((permission) => value.includes(permission)),
            )
          }
          error={errorAt("permissions")}
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
                  {...form.getInputProps(`allowedIPs.${index}.value`)}
                />
                <Button
                  variant="subtle"
                  color="red"
                  aria-label={`Remove allowed IP ${index + 1}`}
                  onClick={() => form.removeListItem("allowedIPs", index)}
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
              onClick={() => form.insertListItem("allowedIPs", ipEntry(""))}
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
            onChange={(value) => form.setFieldValue("validFrom", value)}
            error={errorAt("validFrom")}
          />
          <LocalDateTimeField
            label="Valid to"
            placeholder="No end"
            value={values.validTo}
            onChange={(value) => {
              // A date picked (or cleared) by hand is no preset any more.
              setEndChoice(value === null ? "none" : "date");
              form.setFieldValue("validTo", value);
            }}
            error={windowProblem(values.validFrom, values.validTo) ?? server.fields.validTo}
          />
        </Group>
        <EndsChoice
          id="key-form-ends"
          choice={endChoice}
          validTo={values.validTo}
          validFrom={values.validFrom}
          onChange={(choice, validTo) => {
            setEndChoice(choice);
            form.setFieldValue("validTo", validTo);
          }}
        />
        {props.withEnabled && (
          <Switch
            label="Enabled"
            description="A disabled key authenticates no request."
            {...form.getInputProps("enabled", { type: "checkbox" })}
          />
        )}
        <Group justify="flex-end" className="kd-sticky-footer" mt="sm">
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
