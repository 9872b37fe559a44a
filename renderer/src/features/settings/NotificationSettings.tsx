import { Alert, Button, Card, Stack, Switch, Text, Title } from "@mantine/core";
import { useState } from "react";
import { EXPIRING_SOON_DAYS } from "../../../../shared/apiKeyRules.ts";
import { inDesktopApp } from "../../bridge.ts";
import { errorText } from "../../bridgeHooks.ts";
import { askPagePermission, pagePermission } from "../notifications/pageNotifications.ts";
import { useSettings, useUpdateSettings } from "./settingsHooks.ts";

/** What the browser allows, in words, when the page shows the notifications (browser host). */
function PagePermission(props: { permission: ReturnType<typeof pagePermission>; onAsk(): void }) {
  switch (props.permission) {
    case "granted":
      return null;
    case "unsupported":
      return (
        <Text size="sm" role="status">
          This browser cannot show notifications.
        </Text>
      );
    case "denied":
      return (
        <Text size="sm" role="status">
          This browser blocks Keydesk's notifications: allow them in the site's settings of the browser.
        </Text>
      );
    default:
      return (
        <Stack gap={4} align="flex-start">
          <Text size="sm" role="status">
            This browser has not been allowed to show Keydesk's notifications yet.
          </Text>
          <Button size="xs" variant="light" onClick={props.onAsk}>
            Allow notifications in this browser
          </Button>
        </Stack>
      );
  }
}

/**
 * Whether keys expiring soon are announced (on by default). In the browser host the page shows
 * them, so turning them on asks the browser's permission: never before the admin asks for them.
 */
export function NotificationSettings() {
  const settings = useSettings();
  const update = useUpdateSettings();
  const desktop = inDesktopApp();
  const [permission, setPermission] = useState(pagePermission);
  const ask = () => {
    askPagePermission().then(setPermission, () => setPermission(pagePermission()));
  };
  const on =
    update.isPending && update.variables.expiryNotifications !== undefined
      ? update.variables.expiryNotifications
      : settings.data?.expiryNotifications;
  return (
    <Card
      withBorder
      component="section"
      aria-labelledby="notifications-title"
      data-testid="notification-settings"
    >
      <Stack gap="sm">
        <Title order={3} id="notifications-title">
          Notifications
        </Title>
        {on !== undefined && (
          <Switch
            label={`Notify me of keys expiring within ${EXPIRING_SOON_DAYS} days`}
            description={`Once a day per key, for the account in view, while Keydesk is open: its name, account and end (${
              desktop ? "the system's notifications" : "this browser's notifications"
            }).`}
            checked={on}
            onChange={(event) => {
              const expiryNotifications = event.currentTarget.checked;
              update.mutate({ expiryNotifications });
              if (expiryNotifications && !desktop) ask();
            }}
          />
        )}
        {on === true && !desktop && <PagePermission permission={permission} onAsk={ask} />}
        {update.isError && (
          <Alert color="red" role="alert" title="Not saved">
            {errorText(update.error)}
          </Alert>
        )}
      </Stack>
    </Card>
  );
}
