import { Alert, Button, Code, Group, Modal, Radio, Stack, Switch, Text, TextInput } from "@mantine/core";
import { DateTimePicker } from "@mantine/dates";
import { notifications } from "@mantine/notifications";
import dayjs from "dayjs";
import { type FormEvent, useMemo, useRef, useState } from "react";
import type { ValidationErrors } from "../../../../shared/apiErrors.ts";
import { nameProblems, type Permission } from "../../../../shared/apiKeys.ts";
import type { ApiKeyView, RevealedApiKey } from "../../../../shared/bridge.ts";
import { formatApiDateTime, parseApiDateTime } from "../../../../shared/datetime.ts";
import { normalizeIpEntry } from "../../../../shared/ip.ts";
import { BridgeFailure } from "../../bridgeHooks.ts";
import { useCopyPublicApiKey, useCreateKey, useUpdateKey } from "./keyHooks.ts";

let nextIpId = 1;
const PICKER_FORMAT = "YYYY-MM-DD HH:mm:ss";
export const LOCAL_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

interface KeyFormValues {
  name: string;
  permission: Permission;
  /** Each entry with a stable id for React. */
  allowedIPs: { id: number; value: string }[];
  /** Local time as the picker holds it ("YYYY-MM-DD HH:mm:ss"), or null. */
  validFrom: string | null;
  validTo: string | null;
  enabled: boolean;
}

function toPicker(apiDateTime: string | undefined): string | null {
  const time = apiDateTime ? parseApiDateTime(apiDateTime) : null;
  return time === null ? null : dayjs(time).format(PICKER_FORMAT);
}

function toApi(picker: string | null): string | null {
  return picker ? formatApiDateTime(dayjs(picker).valueOf()) : null;
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

function localProblems(values: KeyFormValues): { name: string | undefined; ips: (string | null)[] } {
  const problems = nameProblems(values.name);
  const ips = values.allowedIPs.map(({ value: entry }) =>
    entry.trim() !== "" && normalizeIpEntry(entry) === null
      ? "Not an IPv4 or IPv6 address or CIDR range"
      : null,
  );
  // The order of validFrom and validTo is the service's rule: its message shows at Valid to.
  return { name: problems.length ? `Name ${problems.join(", ")}` : undefined, ips };
}

/** A date-time picker in local time, the zone named, every control labelled. */
function LocalDateTimeField(props: {
  label: string;
  placeholder: string;
  value: string | null;
  onChange(value: string | null): void;
  error: string | undefined;
}) {
  return (
    <DateTimePicker
      label={props.label}
      description={`Local time (${LOCAL_ZONE})`}
      placeholder={props.placeholder}
      clearable
      withSeconds
      valueFormat="YYYY-MM-DD HH:mm:ss"
      value={props.value}
      onChange={props.onChange}
      error={props.error}
      clearButtonProps={{ "aria-label": `Clear ${props.label}` }}
      submitButtonProps={{ "aria-label": `Apply ${props.label}` }}
      nextLabel="Next month"
      previousLabel="Previous month"
      timePickerProps={{
        hoursInputLabel: "Hours",
        minutesInputLabel: "Minutes",
        secondsInputLabel: "Seconds",
      }}
    />
  );
}

/** Whether two forms hold the same values (the IP entries' ids aside). */
function sameValues(a: KeyFormValues, b: KeyFormValues): boolean {
  const plain = (v: KeyFormValues) => JSON.stringify({ ...v, allowedIPs: v.allowedIPs.map((e) => e.value) });
  return plain(a) === plain(b);
}

function KeyForm(props: {
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
  const set = <F extends keyof KeyFormValues>(field: F, value: KeyFormValues[F]) =>
    setValues((current) => ({ ...current, [field]: value }));
  const local = localProblems(values);
  const server = fieldErrors(props.serverError);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setChecked(true);
    if (local.name || local.ips.some(Boolean)) return;
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
        <Radio.Group
          label="Permissions"
          value={values.permission}
          onChange={(value) => set("permission", value as Permission)}
          error={server.fields.permissions}
        >
          <Group mt={4}>
            <Radio value="ALL" label="ALL (every API)" />
            <Radio value="TFA" label="TFA (2FA only)" />
          </Group>
        </Radio.Group>
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
              onClick={() => set("allowedIPs", [...values.allowedIPs, { id: nextIpId++, value: "" }])}
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
            onChange={(value) => set("validTo", value)}
            error={server.fields.validTo}
          />
        </Group>
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

function cleanIps(entries: KeyFormValues["allowedIPs"]): string[] {
  return entries.map((entry) => entry.value.trim()).filter((entry) => entry !== "");
}

export function CreateKeyDialog(props: {
  opened: boolean;
  accountKey: string;
  onClose(): void;
  onCreated(key: RevealedApiKey): void;
}) {
  const create = useCreateKey();
  const close = () => {
    create.reset();
    props.onClose();
  };
  return (
    <Modal opened={props.opened} onClose={close} title="New API key" size="lg">
      {props.opened && (
        <KeyForm
          initial={{
            name: "",
            permission: "ALL",
            allowedIPs: [],
            validFrom: null,
            validTo: null,
            enabled: true,
          }}
          withEnabled={false}
          submitLabel="Create key"
          pending={create.isPending}
          serverError={create.error}
          onCancel={close}
          onSubmit={(values) => {
            const allowedIPs = cleanIps(values.allowedIPs);
            create.mutate(
              {
                accountKey: props.accountKey,
                request: {
                  name: values.name,
                  permissions: [values.permission],
                  ...(allowedIPs.length ? { allowedIPs } : {}),
                  ...(values.validFrom ? { validFrom: toApi(values.validFrom) } : {}),
                  ...(values.validTo ? { validTo: toApi(values.validTo) } : {}),
                },
              },
              {
                onSuccess: (key) => {
                  create.reset();
                  props.onCreated(key);
                },
              },
            );
          }}
        />
      )}
    </Modal>
  );
}

export function EditKeyDialog(props: { apiKey: ApiKeyView | null; accountKey: string; onClose(): void }) {
  const update = useUpdateKey();
  const [confirmDisable, setConfirmDisable] = useState<KeyFormValues | null>(null);
  const dirty = useRef(false);
  const [confirmDiscard, setConfirmDiscard] = useState(false);
  const key = props.apiKey;
  const close = () => {
    update.reset();
    setConfirmDisable(null);
    setConfirmDiscard(false);
    dirty.current = false;
    props.onClose();
  };
  // Esc, the close button and a click beside the dialog ask first when there are unsaved changes
  // (easily done by accident); Cancel is the admin's explicit choice.
  const leave = () => (dirty.current ? setConfirmDiscard(true) : close());
  // The form's initial values, once per key: a new object each render would make every form dirty.
  const initial = useMemo<KeyFormValues | null>(
    () =>
      key && {
        name: key.name,
        permission: key.permissions.includes("ALL") ? "ALL" : "TFA",
        allowedIPs: (key.allowedIPs ?? []).map((value) => ({ id: nextIpId++, value })),
        validFrom: toPicker(key.validFrom),
        validTo: toPicker(key.validTo),
        enabled: key.enabled,
      },
    [key],
  );
  const send = (values: KeyFormValues) => {
    if (!key) return;
    update.mutate(
      {
        accountKey: props.accountKey,
        key: key.key,
        request: {
          name: values.name,
          permissions: [values.permission],
          allowedIPs: cleanIps(values.allowedIPs),
          validFrom: toApi(values.validFrom),
          validTo: toApi(values.validTo),
          enabled: values.enabled,
        },
      },
      {
        onSuccess: (saved) => {
          notifications.show({ color: "green", message: `Saved “${saved.name}”.` });
          close();
        },
        onError: () => setConfirmDisable(null),
      },
    );
  };
  return (
    <>
      <Modal
        opened={key !== null && confirmDisable === null}
        onClose={leave}
        title={`Edit “${key?.name ?? ""}”`}
        size="lg"
      >
        {confirmDiscard && (
          <Alert
            color="orange"
            variant="outline"
            role="alertdialog"
            aria-label="Discard your changes?"
            title="Discard your changes?"
            mb="sm"
          >
            <Text size="sm">The changes to “{key?.name ?? ""}” are not saved yet.</Text>
            <Group justify="flex-end" mt="xs">
              <Button variant="default" autoFocus onClick={() => setConfirmDiscard(false)}>
                Keep editing
              </Button>
              <Button color="red" onClick={close}>
                Discard changes
              </Button>
            </Group>
          </Alert>
        )}
        {key && initial && (
          <KeyForm
            key={key.key}
            initial={initial}
            withEnabled
            submitLabel="Save changes"
            pending={update.isPending}
            serverError={update.error}
            onCancel={close}
            dirtyRef={dirty}
            onSubmit={(values) => (key.enabled && !values.enabled ? setConfirmDisable(values) : send(values))}
          />
        )}
      </Modal>
      <DisableConfirmDialog
        name={key?.name ?? ""}
        opened={confirmDisable !== null}
        pending={update.isPending}
        onCancel={() => setConfirmDisable(null)}
        onConfirm={() => confirmDisable && send(confirmDisable)}
      />
    </>
  );
}

/** Asks before disabling, and says what stops working. */
export function DisableConfirmDialog(props: {
  name: string;
  opened: boolean;
  pending?: boolean;
  onCancel(): void;
  onConfirm(): void;
}) {
  return (
    <Modal opened={props.opened} onClose={props.onCancel} title={`Disable “${props.name}”?`}>
      <Stack>
        <Text size="sm">
          Every application that uses this key is refused from now on: its API calls (and 2FA PINs sent or
          verified with it) are answered 403 FORBIDDEN, “the API key … is disabled; an admin can enable it
          again”, until the key is enabled again.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onCancel} data-autofocus>
            Keep enabled
          </Button>
          <Button color="red" loading={props.pending ?? false} onClick={props.onConfirm}>
            Disable key
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** The new key with its full publicApiKey, shown once, with a copy button. */
export function NewKeyDialog(props: { apiKey: RevealedApiKey | null; accountKey: string; onClose(): void }) {
  const copy = useCopyPublicApiKey();
  const key = props.apiKey;
  return (
    <Modal opened={key !== null} onClose={props.onClose} title="Key created">
      {key && (
        <Stack>
          <Text size="sm">
            “{key.name}” ({key.permissions.join(", ")}) is ready. Its publicApiKey is what applications send:
          </Text>
          <Group wrap="nowrap" gap="xs">
            <Code data-testid="new-public-api-key" style={{ wordBreak: "break-all", flex: 1 }}>
              {key.publicApiKey}
            </Code>
            <CopyButton
              name={key.name}
              loading={copy.isPending}
              autoFocus
              onCopy={() => copyNotice(copy, props.accountKey, key.key, key.name)}
            />
          </Group>
          <Group justify="flex-end">
            <Button onClick={props.onClose}>Done</Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

type CopyMutation = ReturnType<typeof useCopyPublicApiKey>;

export function copyNotice(copy: CopyMutation, accountKey: string, keyId: string, name: string): void {
  copy.mutate(
    { accountKey, key: keyId },
    {
      onSuccess: (result) =>
        notifications.show({
          color: "green",
          title: "Copied",
          message: `The publicApiKey of “${name}” is on the clipboard (cleared in ${Math.round(result.clearsAfterMs / 1000)} s).`,
        }),
      onError: (error) =>
        notifications.show({ color: "red", title: "Copy failed", message: String(error.message) }),
    },
  );
}

export function CopyButton(props: { name: string; loading: boolean; onCopy(): void; autoFocus?: boolean }) {
  return (
    <Button
      size="compact-sm"
      variant="light"
      {...(props.autoFocus && { "data-autofocus": true })}
      aria-label={`Copy the publicApiKey of ${props.name}`}
      loading={props.loading}
      onClick={props.onCopy}
    >
      Copy
    </Button>
  );
}
