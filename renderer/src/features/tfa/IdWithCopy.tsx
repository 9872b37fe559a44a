import { Button, Code, CopyButton, Group, Text } from "@mantine/core";

/** An id a developer pastes into their code (applicationId, messageId), whole, with Copy. */
export function IdWithCopy({ label, value }: { label: string; value: string }) {
  return (
    <Group gap="xs" wrap="nowrap" align="center" miw={0}>
      <Text size="sm" c="dimmed" style={{ flexShrink: 0 }}>
        {label}
      </Text>
      <Code style={{ wordBreak: "break-all", minWidth: 0 }} data-testid={`${label}-value`}>
        {value}
      </Code>
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Button
            size="compact-xs"
            variant="default"
            onClick={copy}
            aria-label={`Copy ${label} ${value}`}
            style={{ flexShrink: 0 }}
          >
            {copied ? "Copied" : "Copy"}
          </Button>
        )}
      </CopyButton>
    </Group>
  );
}
