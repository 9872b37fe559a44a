import { Badge, Button, Card, Group, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import type { ApplicationDto } from "../../../../shared/tfa.ts";
import { errorText } from "../../bridgeHooks.ts";
import { IdWithCopy } from "./IdWithCopy.tsx";
import { TemplateList } from "./TemplateList.tsx";
import { useUpdateApplication } from "./tfaHooks.ts";

export interface ApplicationCardProps {
  accountKey: string;
  application: ApplicationDto;
  /** Its templates are shown below it. */
  expanded: boolean;
  onToggleTemplates(): void;
  onEdit(): void;
}

function Fact({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={500}>
        {value}
      </Text>
    </div>
  );
}

/** One application: its state, configuration and id; Edit; its templates on request. */
export function ApplicationCard({
  accountKey,
  application,
  expanded,
  onToggleTemplates,
  onEdit,
}: ApplicationCardProps) {
  const { configuration: config } = application;
  const templatesId = `templates-of-${application.applicationId}`;
  const update = useUpdateApplication();
  const toggle = application.enabled ? "Disable" : "Enable";
  const setEnabled = () =>
    update.mutate(
      { accountKey, applicationId: application.applicationId, request: { enabled: !application.enabled } },
      {
        onError: (error) =>
          notifications.show({
            color: "red",
            title: `${application.name} was not changed`,
            message: errorText(error),
          }),
      },
    );
  return (
    <Card withBorder component="article" aria-label={application.name} data-testid="application-card">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Group gap="xs" wrap="wrap" miw={0}>
            <Title order={3} size="h4" style={{ overflowWrap: "anywhere" }}>
              {application.name}
            </Title>
            <Badge
              variant="outline"
              color={application.enabled ? "teal.9" : "gray"}
              data-testid="application-state"
            >
              {application.enabled ? "Enabled" : "Disabled: sends refused"}
            </Badge>
          </Group>
          <Group gap="xs">
            <Button
              size="compact-sm"
              variant="default"
              onClick={setEnabled}
              loading={update.isPending}
              aria-label={`${toggle} ${application.name}`}
            >
              {toggle}
            </Button>
            <Button
              size="compact-sm"
              variant="default"
              onClick={onEdit}
              aria-label={`Edit ${application.name}`}
            >
              Edit
            </Button>
            <Button
              size="compact-sm"
              variant="default"
              onClick={onToggleTemplates}
              aria-expanded={expanded}
              aria-controls={templatesId}
            >
              {expanded ? "Hide templates" : "Message templates"}
            </Button>
          </Group>
        </Group>
        <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="xs" verticalSpacing="xs">
          <Fact label="PIN attempts" value={String(config.pinAttempts)} />
          <Fact label="PIN time to live" value={config.pinTimeToLive} />
          <Fact label="Verify limit per PIN" value={config.verifyPinLimit} />
          <Fact label="Sends per application" value={config.sendPinPerApplicationLimit} />
          <Fact label="Sends per phone number" value={config.sendPinPerPhoneNumberLimit} />
          <Fact
            label="Verify a PIN twice"
            value={config.allowMultiplePinVerifications ? "allowed" : "not allowed"}
          />
        </SimpleGrid>
        <IdWithCopy label="applicationId" value={application.applicationId} />
        {expanded && (
          <div id={templatesId}>
            <TemplateList accountKey={accountKey} application={application} />
          </div>
        )}
      </Stack>
    </Card>
  );
}
