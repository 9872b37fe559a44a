import { Alert, Button, Group, Stack, Text, Title } from "@mantine/core";
import { useState } from "react";
import { namedAccount } from "../../../../shared/accountNamed.ts";
import type { ApplicationDto } from "../../../../shared/tfa.ts";
import { useAccounts } from "../accounts/accountHooks.ts";
import { ApplicationCard } from "./ApplicationCard.tsx";
import { ApplicationDialog } from "./ApplicationDialog.tsx";
import { useApplications } from "./tfaHooks.ts";

type Editing = { application?: ApplicationDto } | null;

/**
 * The 2FA developer's configuration: the applications of the account in view, their settings,
 * and their message templates. The 2FA API acts in the credentials' own account, so a sub-account
 * in view gets an explanation instead of a list it cannot have.
 */
export function TfaView({ accountKey }: { accountKey: string }) {
  const accounts = useAccounts();
  const account = accounts.data?.find(namedAccount(accountKey));
  const isSubAccount = account !== undefined && account.parentAccountKey !== null;
  // Another account's key is asked about only once the accounts tell it is not a sub-account.
  const applications = useApplications(
    accountKey,
    !isSubAccount && (accountKey === "_" || accounts.data !== undefined),
  );
  const [editing, setEditing] = useState<Editing>(null);
  const [expanded, setExpanded] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  return (
    <Stack component="section" aria-labelledby="tfa-title" data-testid="tfa-view" maw={1100}>
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Title order={2} id="tfa-title">
          2FA applications{account ? ` of ${account.username}` : ""}
        </Title>
        {!isSubAccount && <Button onClick={() => setEditing({})}>New application</Button>}
      </Group>
      <Text size="sm" maw={760}>
        An application holds the PIN rules (attempts, time to live, send limits); its message templates hold
        the text a PIN is sent with. Your app sends PINs with an applicationId and a messageId; on the Local
        profile they land in the PIN inbox.
      </Text>
      {isSubAccount && (
        <Alert
          color="blue"
          title="Managed with the sub-account's own credentials"
          data-testid="tfa-sub-account"
        >
          The 2FA API works in the account whose credentials call it, so {account.username}'s applications are
          managed by signing in as {account.username} (a profile with its username and password). Choose the
          own account to manage its applications here.
        </Alert>
      )}
      {saved && (
        <Text size="sm" role="status" data-testid="tfa-saved">
          {saved}
        </Text>
      )}
      {!isSubAccount && applications.isPending && <Text size="sm">Loading the applications…</Text>}
      {/* A failed load is in the banner above the view, with Retry. */}
      {applications.data?.length === 0 && (
        <Text size="sm" data-testid="application-list-empty">
          No 2FA applications yet. Create one to send PINs from your app.
        </Text>
      )}
      {applications.data?.map((application) => (
        <ApplicationCard
          key={application.applicationId}
          accountKey={accountKey}
          application={application}
          expanded={expanded === application.applicationId}
          onToggleTemplates={() =>
            setExpanded((current) =>
              current === application.applicationId ? null : application.applicationId,
            )
          }
          onEdit={() => setEditing({ application })}
        />
      ))}
      {editing && (
        <ApplicationDialog
          accountKey={accountKey}
          application={editing.application}
          onClose={(application) => {
            setEditing(null);
            if (application) {
              setSaved(`${editing.application ? "Saved" : "Created"} the application ${application.name}.`);
              if (!editing.application) setExpanded(application.applicationId);
            }
          }}
        />
      )}
    </Stack>
  );
}
