import { Alert, Button, Checkbox, Group, Modal, PasswordInput, Progress, Stack, Text } from "@mantine/core";
import { useForm } from "@mantine/form";
import type { BackupResultDto } from "../../../../shared/backupBridge.ts";
import { MIN_BACKUP_PASSPHRASE } from "../../../../shared/backupBridge.ts";
import { downloadHref } from "../../bridge.ts";
import { errorText } from "../../bridgeHooks.ts";
import { StrengthHint } from "../accounts/StrengthHint.tsx";
import { hasFileDialogs, useBackupProgress, useCreateBackup } from "./backupHooks.ts";
import { countText, newPassphraseError, sizeText } from "./backupText.ts";

interface Values {
  passphrase: string;
  confirmation: string;
  includeRemotePasswords: boolean;
}

export function ProgressLine({
  label,
  progress,
}: {
  label: string;
  progress: { done: number; total: number } | null;
}) {
  const percent = progress ? Math.round((100 * progress.done) / Math.max(1, progress.total)) : 0;
  return (
    <Stack gap={4} data-testid="backup-progress">
      <Progress value={percent} animated aria-label={label} />
      <Text size="xs" c="dimmed">
        {progress ? `${sizeText(progress.done)} of ${sizeText(progress.total)} (${percent} %)` : "Starting…"}
      </Text>
    </Stack>
  );
}

function Done({ result }: { result: Exclude<BackupResultDto, { delivered: "cancelled" }> }) {
  const what = `${countText(result.keys, "key")} of ${countText(result.accounts, "account")}${
    result.remoteProfiles > 0 ? ` and ${result.remoteProfiles} remote profiles' passwords` : ""
  } (${sizeText(result.bytes)})`;
  return (
    <Alert color="green" title="Backed up" role="status" data-testid="backup-done">
      {result.delivered === "file"
        ? `Saved ${what} to ${result.path}.`
        : `${what}: your browser saves the file.`}{" "}
      Keep the passphrase: without it the file cannot be restored.
    </Alert>
  );
}

/**
 * Settings → Back up…: the passphrase twice (with a strength hint), whether the remote profiles'
 * passwords go in, then the file is made in main while the service runs, with a progress bar.
 */
export function BackupDialog({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const create = useCreateBackup();
  const { progressId, progress, reset } = useBackupProgress();
  const form = useForm<Values>({
    initialValues: { passphrase: "", confirmation: "", includeRemotePasswords: false },
    validate: {
      passphrase: newPassphraseError,
      confirmation: (value, values) =>
        value === values.passphrase ? null : "The passphrases do not match: type the same one twice.",
    },
  });
  const close = () => {
    if (create.isPending) return;
    form.reset();
    create.reset();
    reset();
    onClose();
  };
  const submit = form.onSubmit(({ passphrase, includeRemotePasswords }) => {
    reset();
    create.mutate(
      { passphrase, includeRemotePasswords, progressId },
      {
        onSuccess: (answer) => {
          form.setValues({ passphrase: "", confirmation: "" });
          if (answer.delivered === "download") {
            // The page goes to the one-time address: the file never passes through this page's JS.
            const link = document.createElement("a");
            link.href = downloadHref(answer.url);
            link.download = answer.fileName;
            link.click();
          }
        },
      },
    );
  });
  const result = create.data;
  return (
    <Modal opened={opened} onClose={close} title="Back up the Local data" size="lg">
      {result && result.delivered !== "cancelled" ? (
        <Stack>
          <Done result={result} />
          <Group justify="flex-end" className="kd-sticky-footer">
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={submit} noValidate data-testid="backup-form">
          <Stack>
            <Text size="sm">
              The backup holds the Local service's keys, accounts, 2FA applications, templates and sync links,
              and its data key, sealed with this passphrase.{" "}
              {hasFileDialogs() ? "You choose where to save it." : ""}
            </Text>
            <PasswordInput
              label="Passphrase"
              description={`${MIN_BACKUP_PASSPHRASE} characters or more. Nobody can restore the file without it, not even you.`}
              required
              data-autofocus
              {...form.getInputProps("passphrase")}
            />
            <StrengthHint password={form.values.passphrase} username="" minLength={MIN_BACKUP_PASSPHRASE} />
            <PasswordInput label="Confirm passphrase" required {...form.getInputProps("confirmation")} />
            <Checkbox
              label="Include the remote profiles' passwords from the OS keychain"
              description="Their names, addresses, usernames and passwords go inside the sealed file, so a restore on another computer signs in to them again."
              {...form.getInputProps("includeRemotePasswords", { type: "checkbox" })}
            />
            {create.isPending && <ProgressLine label="Backup progress" progress={progress} />}
            {create.isError && (
              <Alert color="red.9" role="alert" title="Not backed up">
                {errorText(create.error)}
              </Alert>
            )}
            {result?.delivered === "cancelled" && (
              <Text size="sm" role="status">
                Nothing was saved: the save dialog was cancelled.
              </Text>
            )}
            <Group justify="flex-end" className="kd-sticky-footer">
              <Button variant="default" onClick={close} disabled={create.isPending}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending}>
                Back up
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
