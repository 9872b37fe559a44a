import { Alert, Badge, Button, Group, Table, Text } from "@mantine/core";
import type { ProfileDto } from "../../../../shared/bridge.ts";
import { errorText } from "../../bridgeHooks.ts";
import { useActivateProfile, useTestProfile } from "./profileHooks.ts";
import { VerdictView } from "./VerdictView.tsx";

export function ProfileRow(props: { profile: ProfileDto; onEdit(): void; onRemove(): void }) {
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
