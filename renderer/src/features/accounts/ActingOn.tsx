import { ColorSwatch, Group, Text } from "@mantine/core";
import { useProfileScope } from "../../profileScope.ts";
import { useAccountLabel } from "./accountHooks.ts";
import { actingOnText } from "./actingOn.ts";

/** The words of where the view's actions act: its profile and this account. */
export function useActingOn(accountKey: string): string {
  return actingOnText(useProfileScope().name, useAccountLabel(accountKey));
}

/**
 * The line a dialog or drawer that changes or shows keys opens with: the profile (in its colour,
 * as in the header) and the account it acts on.
 */
export function ActingOn({ accountKey }: { accountKey: string }) {
  const scope = useProfileScope();
  const account = useAccountLabel(accountKey);
  return (
    <Group
      gap={6}
      wrap="wrap"
      data-testid="acting-on"
      aria-label={`Acts on ${actingOnText(scope.name, account)}`}
      role="note"
    >
      <Text size="sm" c="dimmed">
        Profile
      </Text>
      <ColorSwatch color={`var(--mantine-color-${scope.color}-6)`} size={12} />
      <Text size="sm" fw={600} style={{ overflowWrap: "anywhere" }}>
        {scope.name}
      </Text>
      <Text size="sm" c="dimmed">
        account
      </Text>
      <Text size="sm" fw={600} style={{ overflowWrap: "anywhere" }}>
        {account}
      </Text>
    </Group>
  );
}
