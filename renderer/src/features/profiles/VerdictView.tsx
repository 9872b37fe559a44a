import { Alert, List, Text } from "@mantine/core";
import type { ConnectionVerdict } from "../../../../shared/bridge.ts";

/** A connection test's answer: reachable, credentials accepted, which account. */
export function VerdictView({ verdict }: { verdict: ConnectionVerdict }) {
  const good = verdict.reachable && verdict.credentialsAccepted;
  return (
    <Alert
      color={good ? "green.9" : "red.9"}
      title={good ? "Connection works" : "Connection failed"}
      data-testid="connection-verdict"
      role="status"
    >
      <List size="sm" spacing={2}>
        <List.Item>Reachable: {verdict.reachable ? "yes" : "no"}</List.Item>
        {/* Unreachable, the credentials were never asked: "no" would blame them. */}
        <List.Item>
          Credentials accepted:{" "}
          {verdict.credentialsAccepted ? "yes" : verdict.reachable ? "no" : "not checked"}
        </List.Item>
        {verdict.accountKey && (
          <List.Item>
            Account: <code>{verdict.accountKey}</code>
          </List.Item>
        )}
      </List>
      <Text size="sm" mt="xs">
        {verdict.text}
      </Text>
    </Alert>
  );
}
