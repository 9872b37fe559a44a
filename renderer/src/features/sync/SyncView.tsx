import {
  Alert,
  Badge,
  Button,
  Card,
  Code,
  Group,
  Modal,
  NumberInput,
  Progress,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from "@mantine/core";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useEffect, useState } from "react";
import type { AccountDto, ProfileDto } from "../../../../shared/bridge.ts";
import {
  DEFAULT_SYNC_INTERVAL_SECONDS,
  MAX_SYNC_INTERVAL_SECONDS,
  MIN_SYNC_INTERVAL_SECONDS,
  type SyncedField,
  type SyncKeyDto,
  type SyncLinkDto,
  type SyncOutboxEntryDto,
} from "../../../../shared/sync.ts";
import { BridgeFailure, errorText } from "../../bridgeHooks.ts";
import { ProfileForm } from "../profiles/ProfilesView.tsx";
import { useProfiles } from "../profiles/profileHooks.ts";
import {
  useCreateLink,
  useDiscardEntry,
  useLocalAccounts,
  useRemoteAccounts,
  useRemoveLink,
  useResolveConflict,
  useRetryEntry,
  useRunLink,
  useSyncEvents,
  useSyncKeys,
  useSyncLinks,
  useSyncOutbox,
  useUpdateLink,
} from "./syncHooks.ts";
import {
  FIELD_LABELS,
  formatFieldValue,
  formatSyncTime,
  linkStateLook,
  linkTitle,
  localAccountLabel,
  profileOfLink,
  progressPercent,
  progressText,
} from "./syncState.ts";

function failed(title: string) {
  return (error: unknown) => notifications.show({ color: "red", title, message: errorText(error) });
}

/** The current time, refreshed every 15 s (for "3 min ago"). */
function useNow(): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 15_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

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

// ---- the link form ------------------------------------------------------------------------

interface LinkValues {
  localAccountKey: string;
  profileId: string | null;
  remoteAccountKey: string;
  intervalSeconds: number | string;
}

function localOptions(accounts: readonly AccountDto[] | undefined) {
  if (!accounts) return [{ value: "_", label: "Own account" }];
  return accounts.map((account) => ({
    value: account.parentAccountKey === null ? "_" : account.accountKey,
    label: localAccountLabel(account.accountKey, accounts),
  }));
}

function remoteOptions(accounts: readonly AccountDto[] | undefined) {
  const own = { value: "_", label: "Own account (_)" };
  if (!accounts) return [own];
  return [
    own,
    ...accounts
      .filter((account) => account.parentAccountKey !== null)
      .map((account) => ({ value: account.accountKey, label: `${account.username} (sub-account)` })),
  ];
}

function LinkForm(props: {
  accounts: AccountDto[] | undefined;
  remotes: ProfileDto[];
  onOpenProfiles(): void;
}) {
  const create = useCreateLink();
  const form = useForm<LinkValues>({
    initialValues: {
      localAccountKey: "_",
      profileId: null,
      remoteAccountKey: "_",
      intervalSeconds: DEFAULT_SYNC_INTERVAL_SECONDS,
    },
    validate: {
      profileId: (value) => (value === null ? "choose a remote profile" : null),
      intervalSeconds: (value) =>
        typeof value === "number" &&
        Number.isInteger(value) &&
        value >= MIN_SYNC_INTERVAL_SECONDS &&
        value <= MAX_SYNC_INTERVAL_SECONDS
          ? null
          : `must be a whole number from ${MIN_SYNC_INTERVAL_SECONDS} to ${MAX_SYNC_INTERVAL_SECONDS}`,
    },
  });
  const profileId = form.getValues().profileId;
  const remoteAccounts = useRemoteAccounts(profileId);
  const submit = form.onSubmit((values) => {
    create.mutate(
      {
        localAccountKey: values.localAccountKey,
        profileId: values.profileId ?? "",
        remoteAccountKey: values.remoteAccountKey,
        intervalSeconds: Number(values.intervalSeconds),
      },
      {
        onSuccess: () => {
          notifications.show({
            color: "green",
            title: "Linked",
            message: "The accounts are linked. Press “Sync now” to copy the remote keys here.",
          });
          form.reset();
        },
        onError: (error) => {
          if (error instanceof BridgeFailure && error.error.messageId === "CONFLICT") {
            form.setFieldError("localAccountKey", error.error.text);
            return;
          }
          if (error instanceof BridgeFailure && error.error.validationErrors) {
            const errors: Record<string, string> = {};
            for (const [field, messages] of Object.entries(error.error.validationErrors)) {
              const name = field === "accountKey" ? "localAccountKey" : field;
              errors[name] = messages.join("; ");
            }
            form.setErrors(errors);
          }
        },
      },
    );
  });
  const fieldErrors =
    create.error instanceof BridgeFailure &&
    (create.error.error.messageId === "CONFLICT" || create.error.error.validationErrors !== undefined);

  return (
    <Card withBorder component="section" aria-labelledby="sync-form-title" data-testid="sync-link-form">
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <Title order={3} id="sync-form-title">
            Link an account
          </Title>
          {props.remotes.length === 0 ? (
            <Group gap="xs">
              <Text size="sm">A link needs a remote profile (base URL, username and password).</Text>
              <Button size="compact-sm" variant="light" onClick={props.onOpenProfiles}>
                Add a remote profile
              </Button>
            </Group>
          ) : null}
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
            <Select
              label="Local account"
              data={localOptions(props.accounts)}
              allowDeselect={false}
              {...form.getInputProps("localAccountKey")}
            />
            <Select
              label="Remote profile"
              placeholder="Choose a remote profile"
              data={props.remotes.map((profile) => ({
                value: profile.id,
                label: `${profile.name} (${profile.username} at ${profile.baseUrl})`,
              }))}
              allowDeselect={false}
              disabled={props.remotes.length === 0}
              {...form.getInputProps("profileId")}
              onChange={(value) => {
                form.setFieldValue("profileId", value);
                form.setFieldValue("remoteAccountKey", "_");
              }}
            />
            <Select
              label="Remote account"
              description={
                remoteAccounts.isError
                  ? `Sub-accounts could not be listed: ${errorText(remoteAccounts.error)}`
                  : "_ is the profile's own account"
              }
              data={remoteOptions(remoteAccounts.data)}
              allowDeselect={false}
              disabled={profileId === null}
              {...form.getInputProps("remoteAccountKey")}
            />
            <NumberInput
              label="Sync every (seconds)"
              min={MIN_SYNC_INTERVAL_SECONDS}
              max={MAX_SYNC_INTERVAL_SECONDS}
              allowDecimal={false}
              allowNegative={false}
              {...form.getInputProps("intervalSeconds")}
            />
          </SimpleGrid>
          {create.isError && !fieldErrors && (
            <Alert color="red.9" role="alert">
              {errorText(create.error)}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button type="submit" loading={create.isPending} disabled={props.remotes.length === 0}>
              Link accounts
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

// ---- a link -------------------------------------------------------------------------------

function Count(props: { label: string; value: number; testId: string; alert?: boolean }) {
  return (
    <div>
      <Text size="xs" c="dimmed" component="dt">
        {props.label}
      </Text>
      <Text
        component="dd"
        fw={600}
        m={0}
        c={props.alert && props.value > 0 ? "red.9" : undefined}
        data-testid={props.testId}
      >
        {props.value}
      </Text>
    </div>
  );
}

function Time(props: { label: string; value: string | null; now: number; never?: string; testId: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed" component="dt">
        {props.label}
      </Text>
      <Text size="sm" component="dd" m={0} data-testid={props.testId}>
        {formatSyncTime(props.value, props.now, props.never)}
      </Text>
    </div>
  );
}

function LinkCard(props: { link: SyncLinkDto; accounts: AccountDto[] | undefined; profiles: ProfileDto[] }) {
  const { link } = props;
  const now = useNow();
  const run = useRunLink();
  const update = useUpdateLink();
  const [removing, setRemoving] = useState(false);
  const [credentials, setCredentials] = useState<ProfileDto | null>(null);
  const look = linkStateLook(link);
  const title = linkTitle(link, props.accounts);
  const titleId = `sync-link-${link.id}-title`;
  const profile = profileOfLink(link, props.profiles);
  const running = link.state === "running" || run.isPending;
  const needsCredentials = link.state === "paused" && link.pausedReason === "credentials";
  const pausedByUser = link.state === "paused" && link.pausedReason === "user";

  const syncNow = () =>
    run.mutate(
      { id: link.id },
      {
        onSuccess: (after) =>
          notifications.show(
            after.lastError
              ? { color: "red", title: "Sync did not go through", message: after.lastError }
              : {
                  color: after.failed > 0 || after.conflicts > 0 ? "orange" : "green",
                  title: after.failed > 0 || after.conflicts > 0 ? "Synced; some changes need you" : "Synced",
                  message: `${after.linkedKeys} linked ${after.linkedKeys === 1 ? "key" : "keys"}, ${after.pending} pending, ${after.conflicts} in conflict, ${after.failed} refused by the remote.`,
                },
          ),
        onError: failed("Sync failed"),
      },
    );
  const setPaused = (paused: boolean) =>
    update.mutate(
      { id: link.id, paused },
      {
        onSuccess: () =>
          notifications.show({
            color: "green",
            message: paused ? "The link is paused." : "The link resumed.",
          }),
        onError: failed(paused ? "Could not pause the link" : "Could not resume the link"),
      },
    );

  return (
    <Card
      withBorder
      component="section"
      aria-labelledby={titleId}
      data-testid="sync-link"
      data-link-id={link.id}
      data-state={link.state}
    >
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" wrap="nowrap">
          <Stack gap={2}>
            <Title order={4} id={titleId}>
              {title}
            </Title>
            <Text size="xs" c="dimmed">
              Every {link.intervalSeconds} s · {link.linkedKeys} linked{" "}
              {link.linkedKeys === 1 ? "key" : "keys"}
            </Text>
          </Stack>
          <Badge color={look.color} variant="dot" data-testid="sync-state">
            {look.label}
          </Badge>
        </Group>

        {link.state === "running" && (
          <Stack gap={4} aria-live="polite">
            <Progress
              value={progressPercent(link.progress)}
              animated
              aria-label={`Sync progress of ${title}`}
              data-testid="sync-progress"
            />
            <Text size="xs">{progressText(link.progress)}</Text>
          </Stack>
        )}

        <SimpleGrid cols={{ base: 2, sm: 3 }} component="dl" m={0} spacing="xs">
          <Time label="Last sync" value={link.lastAttemptAt} now={now} testId="sync-last-attempt" />
          <Time label="Last success" value={link.lastSuccessAt} now={now} testId="sync-last-success" />
          <Time
            label="Next run"
            value={link.nextRunAt}
            now={now}
            never={link.state === "paused" ? "paused" : "not scheduled"}
            testId="sync-next-run"
          />
        </SimpleGrid>
        <SimpleGrid cols={{ base: 3, sm: 5 }} component="dl" m={0} spacing="xs">
          <Count label="Pending" value={link.pending} testId="sync-pending" />
          <Count label="Failed" value={link.failed} testId="sync-failed" alert />
          <Count label="Conflicts" value={link.conflicts} testId="sync-conflicts" alert />
          <Count label="Remote missing" value={link.remoteMissing} testId="sync-remote-missing" />
          <Count label="Linked keys" value={link.linkedKeys} testId="sync-linked-keys" />
        </SimpleGrid>

        {link.lastError && (
          <Alert color="red.9" title="Last error" data-testid="sync-last-error">
            {link.lastError}
          </Alert>
        )}
        {needsCredentials && (
          <Alert
            color="red.9"
            title="The remote refused the credentials"
            data-testid="sync-needs-credentials"
          >
            <Stack gap="xs">
              <Text size="sm">
                Nothing syncs until the link has working credentials.{" "}
                {profile
                  ? `Enter the current password of the profile “${profile.name}”: the link takes it and resumes.`
                  : `No remote profile has the username ${link.remote.username} at ${link.remote.baseUrl}: add one with the current password, and the link takes it.`}
              </Text>
              <Group>
                {profile ? (
                  <Button size="compact-sm" color="red.9" onClick={() => setCredentials(profile)}>
                    Enter credentials
                  </Button>
                ) : null}
              </Group>
            </Stack>
          </Alert>
        )}

        <Group gap="xs">
          <Button
            onClick={syncNow}
            loading={running}
            disabled={link.state === "paused"}
            aria-label={`Sync now: ${title}`}
          >
            Sync now
          </Button>
          {pausedByUser ? (
            <Button variant="default" loading={update.isPending} onClick={() => setPaused(false)}>
              Resume
            </Button>
          ) : (
            !needsCredentials && (
              <Button variant="default" loading={update.isPending} onClick={() => setPaused(true)}>
                Pause
              </Button>
            )
          )}
          <IntervalEditor link={link} />
          <Button
            variant="outline"
            color="red.9"
            onClick={() => setRemoving(true)}
            aria-label={`Remove link ${title}`}
          >
            Remove link
          </Button>
        </Group>

        <KeysNeedingAttention link={link} />
        <OutboxList link={link} />
      </Stack>

      <RemoveLinkDialog opened={removing} link={link} title={title} onClose={() => setRemoving(false)} />
      <Modal
        opened={credentials !== null}
        onClose={() => setCredentials(null)}
        title={credentials ? `Enter the credentials of ${credentials.name}` : ""}
        centered
        size="lg"
      >
        {credentials && <ProfileForm profile={credentials} onDone={() => setCredentials(null)} />}
      </Modal>
    </Card>
  );
}

function IntervalEditor({ link }: { link: SyncLinkDto }) {
  const update = useUpdateLink();
  const [value, setValue] = useState<number | string>(link.intervalSeconds);
  const valid =
    typeof value === "number" &&
    Number.isInteger(value) &&
    value >= MIN_SYNC_INTERVAL_SECONDS &&
    value <= MAX_SYNC_INTERVAL_SECONDS;
  return (
    <Group gap={4} align="flex-end" wrap="nowrap">
      <NumberInput
        size="xs"
        w={110}
        aria-label={`Interval in seconds of link ${link.id}`}
        value={value}
        onChange={setValue}
        min={MIN_SYNC_INTERVAL_SECONDS}
        max={MAX_SYNC_INTERVAL_SECONDS}
        allowDecimal={false}
        allowNegative={false}
      />
      <Button
        size="xs"
        variant="default"
        disabled={!valid || value === link.intervalSeconds}
        loading={update.isPending}
        onClick={() =>
          update.mutate(
            { id: link.id, intervalSeconds: Number(value) },
            {
              onSuccess: () => notifications.show({ color: "green", message: `Syncs every ${value} s now.` }),
              onError: failed("Could not change the interval"),
            },
          )
        }
      >
        Set interval
      </Button>
    </Group>
  );
}

/** Asks before removing a link. */
function RemoveLinkDialog(props: { opened: boolean; link: SyncLinkDto; title: string; onClose(): void }) {
  const remove = useRemoveLink();
  return (
    <Modal opened={props.opened} onClose={props.onClose} title="Remove the link" centered>
      <Stack>
        <Text size="sm">
          Remove the link {props.title}? Keys already copied stay in both places; changes still waiting in the
          outbox are not sent, and conflicts are left as they are.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose}>
            Cancel
          </Button>
          <Button
            color="red.9"
            loading={remove.isPending}
            onClick={() =>
              remove.mutate(
                { id: props.link.id },
                {
                  onSuccess: () => {
                    notifications.show({ color: "green", message: "The link is removed." });
                    props.onClose();
                  },
                  onError: failed("Could not remove the link"),
                },
              )
            }
          >
            Remove link
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

// ---- conflicts and remote-missing keys ----------------------------------------------------------

function KeysNeedingAttention({ link }: { link: SyncLinkDto }) {
  const keys = useSyncKeys(link.id);
  if (keys.isPending) return <Text size="sm">Loading linked keys…</Text>;
  if (keys.isError) {
    return (
      <Alert color="red.9" role="alert">
        {errorText(keys.error)}
      </Alert>
    );
  }
  const conflicts = keys.data.filter((key) => key.conflicts.length > 0);
  const missing = keys.data.filter((key) => key.state === "remote-missing");
  return (
    <>
      <Stack gap="xs" component="section" aria-label="Conflicts" data-testid="sync-conflict-list">
        <Title order={5}>Conflicts</Title>
        {conflicts.length === 0 ? (
          <Text size="sm" data-testid="sync-no-conflicts">
            No conflicts.
          </Text>
        ) : (
          conflicts.map((key) => <ConflictCard key={key.key} link={link} syncKey={key} />)
        )}
      </Stack>
      {missing.length > 0 && (
        <Stack gap="xs" component="section" aria-label="Keys the remote no longer lists">
          <Title order={5}>Gone from the remote</Title>
          <Text size="sm">
            The remote no longer lists these keys; they are kept here and no longer synced.
          </Text>
          <Group gap="xs">
            {missing.map((key) => (
              <Badge key={key.key} variant="dot" color="orange.9" data-testid="sync-remote-missing-key">
                {key.name}
              </Badge>
            ))}
          </Group>
        </Stack>
      )}
    </>
  );
}

function ConflictCard({ link, syncKey }: { link: SyncLinkDto; syncKey: SyncKeyDto }) {
  const resolve = useResolveConflict();
  const choose = (field: SyncedField, take: "mine" | "theirs") =>
    resolve.mutate(
      { id: link.id, key: syncKey.key, field, take },
      {
        onSuccess: () =>
          notifications.show({
            color: "green",
            message: `${FIELD_LABELS[field]} of “${syncKey.name}”: ${take === "mine" ? "kept yours" : "took the remote's"}.`,
          }),
        onError: failed("Could not resolve the conflict"),
      },
    );
  return (
    <Card withBorder p="xs" data-testid="sync-conflict" data-key-id={syncKey.key}>
      <Text size="sm" fw={600}>
        {syncKey.name} <Code>{syncKey.key}</Code>
      </Text>
      <Table aria-label={`Conflicting fields of ${syncKey.name}`}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Field</Table.Th>
            <Table.Th>Mine (local)</Table.Th>
            <Table.Th>Remote</Table.Th>
            <Table.Th>Choose</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {syncKey.conflicts.map((conflict) => {
            const label = FIELD_LABELS[conflict.field];
            const busy = resolve.isPending && resolve.variables?.field === conflict.field;
            return (
              <Table.Tr key={conflict.field} data-testid="sync-conflict-field" data-field={conflict.field}>
                <Table.Td>{label}</Table.Td>
                <Table.Td data-testid="conflict-mine">
                  {formatFieldValue(conflict.field, conflict.mine)}
                </Table.Td>
                <Table.Td data-testid="conflict-theirs">
                  {formatFieldValue(conflict.field, conflict.theirs)}
                </Table.Td>
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    <Button
                      size="compact-sm"
                      variant="default"
                      loading={busy && resolve.variables?.take === "mine"}
                      disabled={resolve.isPending}
                      onClick={() => choose(conflict.field, "mine")}
                      aria-label={`Keep mine: ${label} of ${syncKey.name}`}
                    >
                      Keep mine
                    </Button>
                    <Button
                      size="compact-sm"
                      variant="default"
                      loading={busy && resolve.variables?.take === "theirs"}
                      disabled={resolve.isPending}
                      onClick={() => choose(conflict.field, "theirs")}
                      aria-label={`Take remote: ${label} of ${syncKey.name}`}
                    >
                      Take remote
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Card>
  );
}

// ---- the outbox --------------------------------------------------------------------------------

function changeText(entry: SyncOutboxEntryDto): string {
  if (entry.kind === "create") return "create";
  return `update: ${entry.fields.map((field) => FIELD_LABELS[field]).join(", ") || "fields"}`;
}

function OutboxList({ link }: { link: SyncLinkDto }) {
  const outbox = useSyncOutbox(link.id);
  const keys = useSyncKeys(link.id);
  const retry = useRetryEntry();
  const discard = useDiscardEntry();
  const [discarding, setDiscarding] = useState<SyncOutboxEntryDto | null>(null);
  const nameOf = (key: string) => keys.data?.find((each) => each.key === key)?.name ?? key;
  return (
    <Stack gap="xs" component="section" aria-label="Outbox" data-testid="sync-outbox">
      <Title order={5}>Outbox</Title>
      {outbox.isPending && <Text size="sm">Loading the outbox…</Text>}
      {outbox.isError && (
        <Alert color="red.9" role="alert">
          {errorText(outbox.error)}
        </Alert>
      )}
      {outbox.data?.length === 0 && (
        <Text size="sm" data-testid="sync-outbox-empty">
          Nothing waiting to go out.
        </Text>
      )}
      {outbox.data && outbox.data.length > 0 && (
        <Table aria-label={`Outbox of link ${link.id}`} striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Key</Table.Th>
              <Table.Th>Change</Table.Th>
              <Table.Th>Attempts</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {outbox.data.map((entry) => (
              <Table.Tr key={entry.id} data-testid="sync-outbox-entry" data-failed={entry.failed}>
                <Table.Td>{nameOf(entry.key)}</Table.Td>
                <Table.Td>{changeText(entry)}</Table.Td>
                <Table.Td>{entry.attempts}</Table.Td>
                <Table.Td>
                  {entry.failed ? (
                    <Stack gap={2}>
                      <Badge color="red.9" variant="dot">
                        Failed
                      </Badge>
                      {entry.lastError && (
                        <Text size="xs" c="red.9">
                          {entry.lastError}
                        </Text>
                      )}
                    </Stack>
                  ) : entry.heldFields.length > 0 ? (
                    <Badge color="orange.9" variant="dot" title="Resolve the conflict above to send it">
                      {entry.heldFields.length === entry.fields.length
                        ? "Held by conflict"
                        : "Partly held by conflict"}
                    </Badge>
                  ) : (
                    <Badge color="blue.9" variant="dot">
                      Waiting
                    </Badge>
                  )}
                </Table.Td>
                <Table.Td>
                  {entry.failed && (
                    <Group gap={4} wrap="nowrap">
                      <Button
                        size="compact-sm"
                        variant="default"
                        loading={retry.isPending && retry.variables?.entryId === entry.id}
                        aria-label={`Retry the change of ${nameOf(entry.key)}`}
                        onClick={() =>
                          retry.mutate(
                            { id: link.id, entryId: entry.id },
                            {
                              onSuccess: () =>
                                notifications.show({
                                  color: "green",
                                  message: "The change is back in the queue; it goes out with the next sync.",
                                }),
                              onError: failed("Could not retry the change"),
                            },
                          )
                        }
                      >
                        Retry
                      </Button>
                      <Button
                        size="compact-sm"
                        variant="outline"
                        color="red.9"
                        aria-label={`Discard the change of ${nameOf(entry.key)}`}
                        onClick={() => setDiscarding(entry)}
                      >
                        Discard
                      </Button>
                    </Group>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <Modal
        opened={discarding !== null}
        onClose={() => setDiscarding(null)}
        title="Discard the change"
        centered
      >
        <Stack>
          <Text size="sm">
            Discard the {discarding ? changeText(discarding) : ""} of “
            {discarding ? nameOf(discarding.key) : ""}
            ”? It is not sent to the remote; the local key stays as it is.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDiscarding(null)}>
              Cancel
            </Button>
            <Button
              color="red.9"
              loading={discard.isPending}
              onClick={() => {
                if (!discarding) return;
                discard.mutate(
                  { id: link.id, entryId: discarding.id },
                  {
                    onSuccess: () => {
                      notifications.show({ color: "green", message: "The change is discarded." });
                      setDiscarding(null);
                    },
                    onError: failed("Could not discard the change"),
                  },
                );
              }}
            >
              Discard change
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
