import { Alert, Button, Group, Modal, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useEffect, useMemo, useRef, useState } from "react";
import type { ApiKeyView, RevealedApiKey } from "../../../../shared/bridge.ts";
import { ActingOn } from "../accounts/ActingOn.tsx";
import { SyncedChangeNotice } from "../sync/SyncedChangeNotice.tsx";
import type { SyncRemote } from "../sync/syncState.ts";
import { NewPublicApiKey } from "./CopyPublicApiKey.tsx";
import { ipEntry, KeyForm, type KeyFormValues, toPicker } from "./KeyForm.tsx";
import { changedFields, cleanIps, orderedPermissions, toApi } from "./keyEdits.ts";
import { useCreateKey, useUpdateKey } from "./keyHooks.ts";
import { PushedPublicApiKey } from "./PushedPublicApiKey.tsx";

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
        <Stack gap="sm">
          <ActingOn accountKey={props.accountKey} />
          <KeyForm
            initial={{
              name: "",
              // None preselected: what a key may call is the admin's choice (least privilege);
              // the form refuses to create a key without one.
              permissions: [],
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
                    permissions: orderedPermissions(values.permissions),
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
        </Stack>
      )}
    </Modal>
  );
}

export function EditKeyDialog(props: {
  apiKey: ApiKeyView | null;
  accountKey: string;
  /** The remote a saved change reaches at the next sync, when the key is synced. */
  syncedTo?: SyncRemote | null;
  onClose(): void;
}) {
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
  // The view is remade when the profile or account changes (in this window or another): an edit
  // still unsaved then goes with it, and is said to be gone rather than vanishing silently.
  const editedName = useRef<string | null>(null);
  editedName.current = key?.name ?? null;
  useEffect(
    () => () => {
      if (!dirty.current || editedName.current === null) return;
      notifications.show({
        color: "orange",
        autoClose: false,
        message: `Your edit of “${editedName.current}” was not saved: the view changed to another profile or account before it was. Look at the key there again before you change it.`,
      });
    },
    [],
  );
  // The form's initial values, once per key: a new object each render would make every form dirty.
  const initial = useMemo<KeyFormValues | null>(
    () =>
      key && {
        name: key.name,
        permissions: orderedPermissions(key.permissions),
        allowedIPs: (key.allowedIPs ?? []).map(ipEntry),
        validFrom: toPicker(key.validFrom),
        validTo: toPicker(key.validTo),
        enabled: key.enabled,
      },
    [key],
  );
  const send = (values: KeyFormValues) => {
    if (!key || !initial) return;
    const request = changedFields(initial, values);
    // Nothing changed: nothing to send.
    if (Object.keys(request).length === 0) return close();
    update.mutate(
      { accountKey: props.accountKey, key: key.key, request },
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
            <Group justify="flex-end" className="kd-sticky-footer" mt="xs">
              <Button variant="default" autoFocus onClick={() => setConfirmDiscard(false)}>
                Keep editing
              </Button>
              <Button color="red" onClick={close}>
                Discard changes
              </Button>
            </Group>
          </Alert>
        )}
        <Stack mb="sm" gap="xs">
          <ActingOn accountKey={props.accountKey} />
          <SyncedChangeNotice remote={props.syncedTo} />
        </Stack>
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
        accountKey={props.accountKey}
        syncedTo={props.syncedTo ?? null}
        onCancel={() => setConfirmDisable(null)}
        onConfirm={() => confirmDisable && send(confirmDisable)}
      />
    </>
  );
}

/**
 * Asks before disabling, and says what stops working; asks before enabling (`enable`) a synced key
 * only, since that change reaches the remote too. A synced key's confirmation names its remote.
 */
export function DisableConfirmDialog(props: {
  name: string;
  accountKey: string;
  opened: boolean;
  pending?: boolean;
  enable?: boolean;
  syncedTo?: SyncRemote | null;
  onCancel(): void;
  onConfirm(): void;
}) {
  if (props.enable)
    return (
      <Modal opened={props.opened} onClose={props.onCancel} title={`Enable “${props.name}”?`}>
        <Stack>
          <ActingOn accountKey={props.accountKey} />
          <Text size="sm">Applications that use this key are answered again from now on.</Text>
          <SyncedChangeNotice remote={props.syncedTo} />
          <Group justify="flex-end" className="kd-sticky-footer">
            <Button variant="default" onClick={props.onCancel} data-autofocus>
              Keep disabled
            </Button>
            <Button loading={props.pending ?? false} onClick={props.onConfirm}>
              Enable key
            </Button>
          </Group>
        </Stack>
      </Modal>
    );
  return (
    <Modal opened={props.opened} onClose={props.onCancel} title={`Disable “${props.name}”?`}>
      <Stack>
        <ActingOn accountKey={props.accountKey} />
        <SyncedChangeNotice remote={props.syncedTo} />
        <Text size="sm">
          Every application that uses this key is refused from now on: its API calls (and 2FA PINs sent or
          verified with it) are answered 403 FORBIDDEN, “the API key … is disabled; an admin can enable it
          again”, until the key is enabled again.
        </Text>
        <Group justify="flex-end" className="kd-sticky-footer">
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
export function NewKeyDialog(props: {
  apiKey: RevealedApiKey | null;
  accountKey: string;
  /** The account's link, when it has one: the key is shown once the remote has it (PushedPublicApiKey). */
  linked: { linkId: number; remote: SyncRemote; copyWhenPushed: boolean } | null;
  onClose(): void;
}) {
  const key = props.apiKey;
  return (
    <Modal opened={key !== null} onClose={props.onClose} title="Key created">
      {key && (
        <Stack>
          <ActingOn accountKey={props.accountKey} />
          <Text size="sm">
            “{key.name}” ({key.permissions.join(", ")}) is ready. Its publicApiKey is what applications send:
          </Text>
          {props.linked ? (
            <PushedPublicApiKey
              apiKey={{ key: key.key, name: key.name }}
              accountKey={props.accountKey}
              {...props.linked}
            />
          ) : (
            <NewPublicApiKey apiKey={key} accountKey={props.accountKey} />
          )}
          <Group justify="flex-end" className="kd-sticky-footer">
            <Button onClick={props.onClose}>Done</Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
