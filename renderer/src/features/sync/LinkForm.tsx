import {
  Alert,
  Button,
  Card,
  Group,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from "@mantine/core";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import type { AccountDto, ProfileDto } from "../../../../shared/bridge.ts";
import {
  DEFAULT_SYNC_INTERVAL_SECONDS,
  MAX_SYNC_INTERVAL_SECONDS,
  MIN_SYNC_INTERVAL_SECONDS,
} from "../../../../shared/sync.ts";
import { BridgeFailure, callBridge, errorText } from "../../bridgeHooks.ts";
import { useCreateLink, useRemoteAccounts } from "./syncHooks.ts";
import { linkedNotice, localAccountLabel } from "./syncState.ts";

/** How long the notice of a new link waits for its first run before it says only "Linked". */
const FIRST_RUN_WAIT_MS = 60_000;

/**
 * Linking starts the link's first run: the notice says what that run did (keys pulled, pushed, or
 * why it failed) once it is over, not to press Sync now.
 */
async function sayWhatLinkingDid(id: number): Promise<void> {
  const notice = `sync-linked-${id}`;
  notifications.show({
    id: notice,
    loading: true,
    title: "Linked",
    message: "Syncing for the first time…",
    autoClose: false,
  });
  const until = Date.now() + FIRST_RUN_WAIT_MS;
  try {
    for (;;) {
      const link = (await callBridge("sync.links.list", undefined)).find((each) => each.id === id);
      if (!link) {
        notifications.hide(notice);
        return;
      }
      if (link.lastAttemptAt !== null && link.state !== "running") {
        const { count } = await callBridge("sync.localOnly", { id, limit: 1 });
        const said = linkedNotice(link, count);
        notifications.update({
          id: notice,
          loading: false,
          color: said.failed ? "red" : "green",
          title: said.title,
          message: said.message,
          autoClose: said.failed ? false : 8_000,
        });
        return;
      }
      if (Date.now() > until) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } catch {
    // The list could not be read: the link is made all the same, and its card says how it runs.
  }
  notifications.update({
    id: notice,
    loading: false,
    color: "green",
    title: "Linked",
    message: "The first sync is still under way: its card shows how it goes.",
    autoClose: 8_000,
  });
}

interface LinkValues {
  localAccountKey: string;
  profileId: string | null;
  remoteAccountKey: string;
  intervalSeconds: number | string;
}

/** The parts of the service's check of a new link's remote, as the 400's validationErrors name them. */
const CHECK_TITLES: Record<string, string> = {
  "remote.baseUrl": "The remote is not reachable",
  "remote.password": "The remote refused the credentials",
  "remote.accountKey": "The credentials may not manage that remote account",
};

/** The failed part of the link check, when the failure is one: its title and the service's words. */
function linkCheckFailureOf(error: unknown): { title: string; text: string } | null {
  if (!(error instanceof BridgeFailure)) return null;
  for (const [field, messages] of Object.entries(error.error.validationErrors ?? {})) {
    const title = CHECK_TITLES[field];
    if (title) return { title, text: messages.join("; ") };
  }
  return null;
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

export function LinkForm(props: {
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
  const link = (values: LinkValues, check: boolean) =>
    create.mutate(
      {
        localAccountKey: values.localAccountKey,
        profileId: values.profileId ?? "",
        remoteAccountKey: values.remoteAccountKey,
        intervalSeconds: Number(values.intervalSeconds),
        ...(!check && { check: false }),
      },
      {
        onSuccess: (made) => {
          form.reset();
          void sayWhatLinkingDid(made.id);
        },
        onError: (error) => {
          if (linkCheckFailureOf(error)) return;
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
  const submit = form.onSubmit((values) => link(values, true));
  const checkFailure = linkCheckFailureOf(create.error);
  const fieldErrors =
    checkFailure !== null ||
    (create.error instanceof BridgeFailure &&
      (create.error.error.messageId === "CONFLICT" || create.error.error.validationErrors !== undefined));

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
          {checkFailure && (
            <Alert
              color="red.9"
              role="alert"
              title={checkFailure.title}
              data-testid="sync-link-check-failure"
            >
              <Stack gap="xs">
                <Text size="sm">{checkFailure.text}</Text>
                <Text size="sm">
                  Nothing was linked. Fix the remote profile, or link anyway: the link then retries until the
                  remote answers.
                </Text>
                <Group gap="xs">
                  <Button size="compact-sm" variant="default" onClick={props.onOpenProfiles}>
                    Edit remote profiles
                  </Button>
                  <Button
                    size="compact-sm"
                    variant="outline"
                    color="red.9"
                    loading={create.isPending}
                    onClick={() => link(form.getValues(), false)}
                  >
                    Link anyway
                  </Button>
                </Group>
              </Stack>
            </Alert>
          )}
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
