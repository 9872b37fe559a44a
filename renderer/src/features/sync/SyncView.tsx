import { Alert, Stack, Text, Title } from "@mantine/core";
import { errorText } from "../../bridgeHooks.ts";
import { useProfiles } from "../profiles/profileHooks.ts";
import { LinkCard } from "./LinkCard.tsx";
import { LinkForm } from "./LinkForm.tsx";
import { useLocalAccounts, useSyncEvents, useSyncLinks } from "./syncHooks.ts";

/**
 * Sync of local accounts with remote instances: the links, each with its state, progress, times,
 * counts, conflicts and outbox, and the form that makes a link from a remote profile.
 */
export function SyncView({ onOpenProfiles }: { onOpenProfiles(): void }) {
  const links = useSyncLinks({ live: true });
  const accounts = useLocalAccounts();
  const profiles = useProfiles();
  useSyncEvents();
  const remotes = profiles.data?.filter((profile) => profile.kind === "remote") ?? [];

  return (
    <Stack component="section" aria-labelledby="sync-title" data-testid="sync-view">
      <Title order={2} id="sync-title">
        Sync
      </Title>
      <Text size="sm">
        A link keeps an account of the Local service in step with an account of a remote service: remote keys
        are copied here (so apps under test can use them offline), local changes go out, and a field changed
        on both sides waits for you to choose.
      </Text>
      <LinkForm accounts={accounts.data} remotes={remotes} onOpenProfiles={onOpenProfiles} />
      <Title order={3}>Links</Title>
      {links.isPending && <Text>Loading links…</Text>}
      {links.isError && (
        <Alert color="red.9" role="alert">
          {errorText(links.error)}
        </Alert>
      )}
      {links.data?.length === 0 && (
        <Text data-testid="sync-links-empty">
          No links yet: link a local account to a remote profile above.
        </Text>
      )}
      {links.data?.map((link) => (
        <LinkCard key={link.id} link={link} accounts={accounts.data} profiles={profiles.data ?? []} />
      ))}
    </Stack>
  );
}
