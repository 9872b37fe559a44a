import { Alert, Button, Group, Stack, Text } from "@mantine/core";
import type { ProfileDto } from "../../../../shared/bridge.ts";
import { errorText } from "../../bridgeHooks.ts";
import { useRemoveProfile } from "./profileHooks.ts";

export function RemoveConfirm({ profile, onDone }: { profile: ProfileDto; onDone(): void }) {
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
      <Group justify="flex-end" className="kd-sticky-footer">
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
