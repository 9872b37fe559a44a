import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  List,
  Modal,
  PasswordInput,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import type { ConnectionVerdict, ProfileDto } from "../../../../shared/bridge.ts";
import { BridgeFailure, errorText, useServiceStatus } from "../../bridgeHooks.ts";
import { CopyableField } from "./CopyableField.tsx";
import {
  useActivateProfile,
  useAddProfile,
  useEditProfile,
  useProfiles,
  useRemoveProfile,
  useRevealLocalCredentials,
  useTestProfile,
} from "./profileHooks.ts";

/** A connection test's answer: reachable, credentials accepted, which account. */
export function VerdictView({ verdict }: { verdict: ConnectionVerdict }) {
  const good = verdict.reachable && verdict.credentialsAccepted;
  return (
    <Alert
      color={good ? "green.9" : "red.9"}
      title={good ? "Connection works" : "Connection failed"}
      data-testid="connection-verdict"
      role="status"
    >
      <List size="sm" spacing={2}>
        <List.Item>Reachable: {verdict.reachable ? "yes" : "no"}</List.Item>
        <List.Item>Credentials accepted: {verdict.credentialsAccepted ? "yes" : "no"}</List.Item>
        {verdict.accountKey && (
          <List.Item>
            Account: <code>{verdict.accountKey}</code>
          </List.Item>
        )}
      </List>
      <Text size="sm" mt="xs">
        {verdict.text}
      </Text>
    </Alert>
  );
}

type Editing = { mode: "add" } | { mode: "edit"; profile: ProfileDto } | null;

/** The connection profiles: the local embedded service and remote ones. */
export function ProfilesView() {
  const profiles = useProfiles();
  const [editing, setEditing] = useState<Editing>(null);
  const [removing, setRemoving] = useState<ProfileDto | null>(null);
  const local = profiles.data?.find((profile) => profile.kind === "local");

  return (
    <Stack component="section" aria-labelledby="profiles-title" data-testid="profiles-view">
      <Group justify="space-between">
        <Title order={2} id="profiles-title">
          Profiles
        </Title>
        <Button onClick={() => setEditing({ mode: "add" })}>Add remote profile</Button>
      </Group>
      {profiles.isPending && <Text>Loading profiles…</Text>}
      {profiles.isError && (
        <Alert color="red.9" role="alert">
          {errorText(profiles.error)}
        </Alert>
      )}
      {profiles.data && (
        <Table striped highlightOnHover data-testid="profiles-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Service</Table.Th>
              <Table.Th>Username</Table.Th>
              <Table.Th>Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {profiles.data.map((profile) => (
              <ProfileRow
                key={profile.id}
                profile={profile}
                onEdit={() => setEditing({ mode: "edit", profile })}
                onRemove={() => setRemoving(profile)}
              />
            ))}
          </Table.Tbody>
        </Table>
      )}
      {local && <LocalServiceCard profile={local} />}
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing?.mode === "edit" ? `Edit profile ${editing.profile.name}` : "Add a remote profile"}
        centered
        size="lg"
      >
        {editing && (
          <ProfileForm
            profile={editing.mode === "edit" ? editing.profile : undefined}
            onDone={() => setEditing(null)}
          />
        )}
      </Modal>
      <Modal opened={removing !== null} onClose={() => setRemoving(null)} title="Remove profile" centered>
        {removing && <RemoveConfirm profile={removing} onDone={() => setRemoving(null)} />}
      </Modal>
    </Stack>
  );
}

function ProfileRow(props: { profile: ProfileDto; onEdit(): void; onRemove(): void }) {
  const { profile } = props;
  const activate = useActivateProfile();
  const test = useTestProfile();
  return (
    <>
      <Table.Tr data-testid="profile-row" data-profile-name={profile.name} aria-current={profile.active}>
        <Table.Td>
          <Group gap="xs">
            <Text fw={500}>{profile.name}</Text>
            {profile.kind === "local" && (
              <Badge variant="outline" color="gray.8">
                Local
              </Badge>
            )}
            {profile.active && (
              <Badge color="green" variant="dot" data-testid="active-badge">
                Active
              </Badge>
            )}
          </Group>
        </Table.Td>
        <Table.Td>
          <code>{profile.baseUrl}</code>
        </Table.Td>
        <Table.Td>{profile.username}</Table.Td>
        <Table.Td>
          <Group gap="xs">
            <Button
              size="compact-sm"
              variant="default"
              loading={test.isPending}
              onClick={() => test.mutate({ id: profile.id })}
              aria-label={`Test connection of ${profile.name}`}
            >
              Test connection
            </Button>
            {!profile.active && (
              <Button
                size="compact-sm"
                loading={activate.isPending}
                onClick={() => activate.mutate({ id: profile.id })}
                aria-label={`Activate ${profile.name}`}
              >
                Activate
              </Button>
            )}
            {profile.kind === "remote" && (
              <>
                <Button
                  size="compact-sm"
                  variant="default"
                  onClick={props.onEdit}
                  aria-label={`Edit ${profile.name}`}
                >
                  Edit
                </Button>
                {/* Outline: a "light" button with a shade (red.9) fills with that shade, and its red text vanished. */}
                <Button
                  size="compact-sm"
                  variant="outline"
                  color="red.9"
                  onClick={props.onRemove}
                  aria-label={`Remove ${profile.name}`}
                >
                  Remove
                </Button>
              </>
            )}
          </Group>
        </Table.Td>
      </Table.Tr>
      {(test.data || test.isError || activate.isError) && (
        <Table.Tr>
          <Table.Td colSpan={4}>
            {test.data && <VerdictView verdict={test.data} />}
            {test.isError && (
              <Alert color="red.9" role="alert">
                {errorText(test.error)}
              </Alert>
            )}
            {activate.isError && (
              <Alert color="red.9" role="alert">
                {errorText(activate.error)}
              </Alert>
            )}
          </Table.Td>
        </Table.Tr>
      )}
    </>
  );
}

interface ProfileValues {
  name: string;
  baseUrl: string;
  username: string;
  password: string;
}

/** Adds a remote profile, or edits one (also the Sync view's "Enter credentials"). */
export function ProfileForm({ profile, onDone }: { profile?: ProfileDto; onDone(): void }) {
  const add = useAddProfile();
  const edit = useEditProfile();
  const test = useTestProfile();
  const form = useForm<ProfileValues>({
    initialValues: {
      name: profile?.name ?? "",
      baseUrl: profile?.baseUrl ?? "",
      username: profile?.username ?? "",
      password: "",
    },
    validate: {
      name: (value) => (value.trim() === "" ? "must not be empty" : null),
      baseUrl: (value) =>
        /^https?:\/\/\S+$/.test(value.trim()) ? null : "must be an http:// or https:// URL",
      username: (value) => (value.trim() === "" ? "must not be empty" : null),
      password: (value) => (profile === undefined && value === "" ? "must not be empty" : null),
    },
  });
  const save = profile ? edit : add;
  const showFieldErrors = (error: unknown) => {
    if (error instanceof BridgeFailure && error.error.validationErrors) {
      const errors: Record<string, string> = {};
      for (const [field, messages] of Object.entries(error.error.validationErrors)) {
        errors[field] = messages.join("; ");
      }
      form.setErrors(errors);
    }
  };
  const submit = form.onSubmit((values) => {
    const common = {
      name: values.name.trim(),
      baseUrl: values.baseUrl.trim(),
      username: values.username.trim(),
    };
    if (profile) {
      edit.mutate(
        { id: profile.id, ...common, ...(values.password !== "" && { password: values.password }) },
        { onSuccess: onDone, onError: showFieldErrors },
      );
    } else {
      add.mutate({ ...common, password: values.password }, { onSuccess: onDone, onError: showFieldErrors });
    }
  });
  const runTest = () => {
    const values = form.getValues();
    if (profile && values.password === "") {
      test.mutate({ id: profile.id });
      return;
    }
    if (form.validate().hasErrors) return;
    test.mutate(
      { baseUrl: values.baseUrl.trim(), username: values.username.trim(), password: values.password },
      { onError: showFieldErrors },
    );
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput label="Name" required data-autofocus {...form.getInputProps("name")} />
        <TextInput
          label="Base URL"
          placeholder="https://keys.example.com"
          required
          {...form.getInputProps("baseUrl")}
        />
        <TextInput label="Username" required autoComplete="off" {...form.getInputProps("username")} />
        <PasswordInput
          label="Password"
          required={profile === undefined}
          autoComplete="new-password"
          description={profile ? "Leave empty to keep the saved password" : undefined}
          {...form.getInputProps("password")}
        />
        {test.data && <VerdictView verdict={test.data} />}
        {(test.isError ||
          (save.isError && !(save.error instanceof BridgeFailure && save.error.error.validationErrors))) && (
          <Alert color="red.9" role="alert">
            {errorText(test.error ?? save.error)}
          </Alert>
        )}
        <Group justify="space-between">
          <Button variant="default" onClick={runTest} loading={test.isPending}>
            Test connection
          </Button>
          <Group>
            <Button variant="default" onClick={onDone}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              {profile ? "Save" : "Add profile"}
            </Button>
          </Group>
        </Group>
      </Stack>
    </form>
  );
}

function RemoveConfirm({ profile, onDone }: { profile: ProfileDto; onDone(): void }) {
  const remove = useRemoveProfile();
  return (
    <Stack>
      <Text>
        Remove the profile <b>{profile.name}</b> ({profile.baseUrl})? Its saved password is deleted too.
        {profile.active && " The Local profile becomes active."}
      </Text>
      {remove.isError && (
        <Alert color="red.9" role="alert">
          {errorText(remove.error)}
        </Alert>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={onDone}>
          Cancel
        </Button>
        <Button
          color="red.9"
          loading={remove.isPending}
          onClick={() => remove.mutate({ id: profile.id }, { onSuccess: onDone })}
        >
          Remove profile
        </Button>
      </Group>
    </Stack>
  );
}

/** The embedded service's state, whichever profile is active (the header shows the active one's). */
function EmbeddedServiceStatus() {
  const status = useServiceStatus();
  if (status.isPending) return <Text size="sm">Checking the embedded key service…</Text>;
  if (status.isError) return null; // the banner says it, with Retry
  const s = status.data;
  return (
    <Group gap="xs" data-testid="embedded-service-status">
      <Badge color={s.running ? "green" : "red"} variant="dot">
        {s.running ? "Running" : "Stopped"}
      </Badge>
      <Text size="sm">
        {s.running ? `Embedded key service: running at ${s.baseUrl}` : "Embedded key service: stopped"}
        {s.portChanged ? ` (the remembered port was taken, so it uses port ${s.port})` : ""}
      </Text>
    </Group>
  );
}

function LocalServiceCard({ profile }: { profile: ProfileDto }) {
  const reveal = useRevealLocalCredentials();
  return (
    <Card withBorder component="section" aria-labelledby="local-service-title" data-testid="local-service">
      <Stack gap="sm">
        <Title order={3} id="local-service-title">
          Local service
        </Title>
        <Text size="sm">
          The key service embedded in Keydesk. Point an app under test at this address with the credentials
          below (HTTP Basic), or with an API key you create here.
        </Text>
        <EmbeddedServiceStatus />
        <CopyableField label="Base URL" value={profile.baseUrl} testId="local-base-url" />
        {reveal.data ? (
          <>
            <CopyableField label="Username" value={reveal.data.username} testId="local-username" />
            <CopyableField label="Password" value={reveal.data.password} testId="local-password" />
            <Group>
              <Button variant="default" onClick={() => reveal.reset()}>
                Hide credentials
              </Button>
            </Group>
          </>
        ) : (
          <Group>
            <Button variant="default" loading={reveal.isPending} onClick={() => reveal.mutate()}>
              Reveal credentials
            </Button>
          </Group>
        )}
        {reveal.isError && (
          <Alert color="red.9" role="alert">
            {errorText(reveal.error)}
          </Alert>
        )}
      </Stack>
    </Card>
  );
}
