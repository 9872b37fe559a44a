import { ColorSwatch, Group, Loader, Select, Text, Tooltip } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { errorText } from "../../bridgeHooks.ts";
import { profileColor, useProfileScope } from "../../profileScope.ts";
import { useActivateProfile, useProfiles } from "./profileHooks.ts";

/**
 * The active profile, always in the header, in its own colour (Local's is always the same, each
 * remote's its own), and the switch to another: like a console's test-mode banner, so that the
 * service an action reaches is never mistaken. The header's strip has the same colour.
 */
export function ProfileSwitcher() {
  const scope = useProfileScope();
  const profiles = useProfiles();
  const activate = useActivateProfile();
  const switching = activate.isPending
    ? profiles.data?.find((p) => p.id === activate.variables?.id)
    : undefined;
  const data = (profiles.data ?? []).map((profile) => ({
    value: profile.id,
    label: profile.kind === "local" ? `${profile.name} (this computer)` : `${profile.name} (remote)`,
  }));
  const colorOf = (id: string) => {
    const profile = profiles.data?.find((p) => p.id === id);
    return profile ? profileColor(profile) : scope.color;
  };
  return (
    <Group gap={6} wrap="nowrap" data-testid="profile-switcher" data-profile-color={scope.color}>
      {/* A long name ends in "…" in the field: whole in the tooltip. */}
      <Tooltip
        label={`Active profile: ${data.find((option) => option.value === scope.id)?.label ?? scope.name}`}
        openDelay={300}
        multiline
        maw={360}
      >
        <Select
          aria-label="Active profile"
          data={data.length > 0 ? data : [{ value: scope.id, label: scope.name }]}
          value={scope.id}
          allowDeselect={false}
          // Not disabled while a switch loads: the name stays readable; a second choice waits.
          readOnly={activate.isPending}
          size="xs"
          leftSection={<ColorSwatch color={`var(--mantine-color-${scope.color}-6)`} size={12} />}
          renderOption={({ option }) => (
            <Group gap={8} wrap="nowrap">
              <ColorSwatch color={`var(--mantine-color-${colorOf(option.value)}-6)`} size={12} />
              <Text size="sm">{option.label}</Text>
            </Group>
          )}
          onChange={(id) => {
            if (id === null || id === scope.id) return;
            activate.mutate(
              { id },
              {
                onError: (error) =>
                  notifications.show({
                    color: "red",
                    title: "Could not switch the profile",
                    message: errorText(error),
                  }),
              },
            );
          }}
          comboboxProps={{ withinPortal: true, width: "max-content", keepMounted: false }}
          styles={{
            input: {
              fontWeight: 600,
              borderColor: `var(--mantine-color-${scope.color}-6)`,
              borderWidth: 2,
              fieldSizing: "content",
              minWidth: 150,
              maxWidth: 260,
              textOverflow: "ellipsis",
            },
          }}
        />
      </Tooltip>
      {switching && (
        <Group gap={4} wrap="nowrap" role="status" data-testid="profile-switching">
          <Loader size="xs" />
          <Text size="xs">Loading {switching.name}…</Text>
        </Group>
      )}
    </Group>
  );
}
