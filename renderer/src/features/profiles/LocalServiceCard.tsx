import { Alert, Badge, Button, Card, Group, Stack, Text, Title } from "@mantine/core";
import type { ProfileDto } from "../../../../shared/bridge.ts";
import { errorText, useServiceStatus } from "../../bridgeHooks.ts";
import { CopyableField } from "./CopyableField.tsx";
import { portNote } from "./portNote.ts";
import { useRevealLocalCredentials } from "./profileHooks.ts";

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
        {portNote(s) ? ` (${portNote(s)})` : ""}
      </Text>
    </Group>
  );
}

export function LocalServiceCard({ profile }: { profile: ProfileDto }) {
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
