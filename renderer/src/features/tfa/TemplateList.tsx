import { Alert, Badge, Button, Group, Paper, Stack, Text, Title } from "@mantine/core";
import { useState } from "react";
import type { ApplicationDto, MessageTemplateDto } from "../../../../shared/tfa.ts";
import { errorText } from "../../bridgeHooks.ts";
import { IdWithCopy } from "./IdWithCopy.tsx";
import { TemplateDialog } from "./TemplateDialog.tsx";
import { useTemplates } from "./tfaHooks.ts";

type Editing = { template?: MessageTemplateDto } | null;

/** The message templates of one application, with New and Edit. */
export function TemplateList({
  accountKey,
  application,
}: {
  accountKey: string;
  application: ApplicationDto;
}) {
  const templates = useTemplates(accountKey, application.applicationId);
  const [editing, setEditing] = useState<Editing>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const headingId = `templates-${application.applicationId}`;
  return (
    <Stack gap="xs" component="section" aria-labelledby={headingId} data-testid="template-list">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Title order={4} id={headingId}>
          Message templates of {application.name}
        </Title>
        <Button size="xs" variant="default" onClick={() => setEditing({})}>
          New template
        </Button>
      </Group>
      {saved && (
        <Text size="sm" role="status">
          {saved}
        </Text>
      )}
      {templates.isPending && <Text size="sm">Loading the templates…</Text>}
      {templates.isError && (
        <Alert color="red" role="alert" title="The templates could not be loaded">
          {errorText(templates.error)}
        </Alert>
      )}
      {templates.data?.length === 0 && (
        <Text size="sm" data-testid="template-list-empty">
          No templates yet: a PIN is sent with a template, which holds the message text with {"{{pin}}"}.
        </Text>
      )}
      {templates.data?.map((template) => (
        <Paper key={template.messageId} withBorder p="sm" data-testid="template-row">
          <Stack gap={6}>
            <Text size="sm" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
              {template.messageText}
            </Text>
            <Group gap="xs" wrap="wrap">
              <Badge variant="outline" color="gray">
                {template.pinLength} × {template.pinType}
              </Badge>
              <Badge variant="outline" color="gray">
                language {template.language}
              </Badge>
              {template.senderId && (
                <Badge variant="outline" color="gray" style={{ textTransform: "none" }}>
                  sender {template.senderId}
                </Badge>
              )}
            </Group>
            <Group justify="space-between" wrap="wrap" gap="xs">
              <IdWithCopy label="messageId" value={template.messageId} />
              <Button
                size="compact-sm"
                variant="default"
                onClick={() => setEditing({ template })}
                aria-label={`Edit template ${template.messageId}`}
              >
                Edit
              </Button>
            </Group>
          </Stack>
        </Paper>
      ))}
      {editing && (
        <TemplateDialog
          accountKey={accountKey}
          applicationId={application.applicationId}
          applicationName={application.name}
          template={editing.template}
          onClose={(template) => {
            setEditing(null);
            if (template) setSaved(editing.template ? "Template saved." : "Template created.");
          }}
        />
      )}
    </Stack>
  );
}
