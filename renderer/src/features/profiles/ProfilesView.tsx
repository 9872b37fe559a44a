import { Alert, Button, Group, Modal, Stack, Table, Text, Title } from "@mantine/core";
import { useEffect, useRef, useState } from "react";
import type { ProfileDto } from "../../../../shared/bridge.ts";
import { errorText } from "../../bridgeHooks.ts";
import { useNavigation } from "../../navigation.ts";
import { LocalServiceCard } from "./LocalServiceCard.tsx";
import { ProfileForm } from "./ProfileForm.tsx";
import { ProfileRow } from "./ProfileRow.tsx";
import { useProfiles } from "./profileHooks.ts";
import { RemoveConfirm } from "./RemoveProfileConfirm.tsx";

type Editing = { mode: "add" } | { mode: "edit"; profile: ProfileDto } | null;

/** The connection profiles: the local embedded service and remote ones. */
export function ProfilesView() {
  const profiles = useProfiles();
  const [editing, setEditing] = useState<Editing>(null);
  const [removing, setRemoving] = useState<ProfileDto | null>(null);
  const local = profiles.data?.find((profile) => profile.kind === "local");
  // Opened to fix a profile (the page's banner of refused credentials): its edit form, once.
  const { editProfile } = useNavigation();
  const toEdit = profiles.data?.find((profile) => profile.id === editProfile && profile.kind === "remote");
  const opened = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (!toEdit || opened.current === toEdit.id) return;
    opened.current = toEdit.id;
    setEditing({ mode: "edit", profile: toEdit });
  }, [toEdit]);

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
