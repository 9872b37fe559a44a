import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Modal,
  NumberInput,
  Progress,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useState } from "react";
import type { AccountDto, ProfileDto } from "../../../../shared/bridge.ts";
import {
  MAX_SYNC_INTERVAL_SECONDS,
  MIN_SYNC_INTERVAL_SECONDS,
  type SyncLinkDto,
} from "../../../../shared/sync.ts";
import { latestNow, useLatestNow } from "../../useNow.ts";
import { WHOLE_BADGE } from "../../wholeBadge.ts";
import { ProfileForm } from "../profiles/ProfileForm.tsx";
import { failed } from "./failureToast.ts";
import { KeysNeedingAttention } from "./KeysNeedingAttention.tsx";
import { LocalOnlyKeys } from "./LocalOnlyKeys.tsx";
import { OutboxList } from "./OutboxList.tsx";
import { RemoveLinkDialog } from "./RemoveLinkDialog.tsx";
import { RunLog } from "./RunLog.tsx";
import { useRunLink, useUpdateLink } from "./syncHooks.ts";
import {
  formatSyncTime,
  linkStateLook,
  linkTitle,
  nextRunText,
  profileOfLink,
  progressPercent,
  progressText,
} from "./syncState.ts";

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
  const shown = formatSyncTime(props.value, props.now, props.never);
  return (
    <div>
      <Text size="xs" c="dimmed" component="dt">
        {props.label}
      </Text>
      <Text size="sm" component="dd" m={0} data-testid={props.testId} title={shown.title}>
        {shown.text}
      </Text>
    </div>
  );
}

function NextRun({ link, now }: { link: SyncLinkDto; now: number }) {
  // `now` ticks every 15 s; a retry is seconds away, so the card's refresh (1–5 s) moves it on.
  const shown = nextRunText(link, latestNow(now));
  return (
    <div>
      <Text size="xs" c="dimmed" component="dt">
        Next run
      </Text>
      <Text size="sm" component="dd" m={0} data-testid="sync-next-run" title={shown.title}>
        {shown.text}
      </Text>
    </div>
  );
}

export function LinkCard(props: {
  link: SyncLinkDto;
  accounts: AccountDto[] | undefined;
  profiles: ProfileDto[];
}) {
  const { link } = props;
  // Ticks every 15 s to move "3 min ago" on; a run that ended since is not "in 6 s".
  const now = useLatestNow();
  const run = useRunLink();
  const update = useUpdateLink();
  const [removing, setRemoving] = useState(false);
  const [credentials, setCredentials] = useState<ProfileDto | null>(null);
  const look = linkStateLook(link);
  const { title, detail } = linkTitle(link, props.accounts, props.profiles);
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
            <Text size="sm" data-testid="sync-link-remote" style={{ overflowWrap: "anywhere" }}>
              {detail}
            </Text>
            <Text size="xs" c="dimmed">
              Every {link.intervalSeconds} s · {link.linkedKeys} linked{" "}
              {link.linkedKeys === 1 ? "key" : "keys"}
            </Text>
          </Stack>
          <Badge color={look.color} variant="dot" styles={WHOLE_BADGE} data-testid="sync-state">
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
          <NextRun link={link} now={now} />
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
        {/* What waits to go out and what the last runs did, before the local-only list, which may
            be long (50 rows a page): an admin looks at those first, and they stay in sight. */}
        <OutboxList link={link} />
        <RunLog link={link} />
        <LocalOnlyKeys link={link} />
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
