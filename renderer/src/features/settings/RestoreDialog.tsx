import { Alert, Button, Code, FileInput, Group, Modal, PasswordInput, Stack, Text } from "@mantine/core";
import { useEffect, useState } from "react";
import type { RestoreSourceDto } from "../../../../shared/backupBridge.ts";
import { errorText } from "../../bridgeHooks.ts";
import { ProgressLine } from "./BackupDialog.tsx";
import { hasFileDialogs, useBackupProgress, useInspectBackup, useRestoreBackup } from "./backupHooks.ts";
import { asSentence, countText, sizeText } from "./backupText.ts";

const dateText = (iso: string) => new Date(iso).toLocaleString();

/** What the restore replaces, in one sentence the admin confirms. */
function Confirmation({ source }: { source: RestoreSourceDto }) {
  return (
    <Alert color="orange" title="This replaces the Local data" role="note" data-testid="restore-confirmation">
      <Text size="sm">
        <b>{source.fileName}</b> ({sizeText(source.bytes)}) is a backup made on{" "}
        <b data-testid="restore-created-at">{dateText(source.createdAt)}</b>.
      </Text>
      <Text size="sm" mt={4} data-testid="restore-replaces">
        {source.current === null
          ? "Restoring it replaces the Local service's data now, which cannot be read (it may be damaged)."
          : `Restoring it replaces the Local service's data now: ${countText(source.current.keys, "key")} of ${countText(source.current.accounts, "account")}.`}{" "}
        That data is not deleted: it is kept beside it, in a folder named{" "}
        <Code>service.before-restore-…</Code>.
      </Text>
    </Alert>
  );
}

/** Picks the file: the desktop's open dialog, or (browser host) a file input whose file is uploaded. */
function SourcePicker({ inspect }: { inspect: ReturnType<typeof useInspectBackup> }) {
  if (hasFileDialogs()) {
    return (
      <Group>
        <Button onClick={() => inspect.mutate("pick")} loading={inspect.isPending}>
          Choose a backup file…
        </Button>
      </Group>
    );
  }
  return (
    <FileInput
      label="Backup file"
      description="A .kdbackup file made by Back up… or by key-service backup."
      placeholder="Choose a file"
      clearable
      disabled={inspect.isPending}
      onChange={(file) => {
        if (file) inspect.mutate({ file });
      }}
    />
  );
}

/**
 * Settings → Restore…: choose a backup (or an automatic one), see what it replaces, type its
 * passphrase; main then checks the whole file beside the data, and only then stops the service,
 * swaps the data (the old kept) and starts it again. A wrong passphrase changes nothing.
 */
export function RestoreDialog({
  opened,
  automatic,
  onClose,
}: {
  opened: boolean;
  /** An automatic backup's name: chosen already, its passphrase in the keychain. */
  automatic?: string | undefined;
  onClose(): void;
}) {
  const inspect = useInspectBackup();
  const restore = useRestoreBackup();
  const { progressId, progress, reset } = useBackupProgress();
  const [passphrase, setPassphrase] = useState("");
  const source = inspect.data ?? null;
  const { mutate: inspectMutate, reset: inspectReset } = inspect;
  useEffect(() => {
    if (opened && automatic) inspectMutate({ automatic });
  }, [opened, automatic, inspectMutate]);
  const close = () => {
    if (restore.isPending) return;
    inspectReset();
    restore.reset();
    reset();
    setPassphrase("");
    onClose();
  };
  const start = () => {
    if (!source) return;
    reset();
    restore.mutate(
      { sourceId: source.sourceId, progressId, ...(passphrase !== "" && { passphrase }) },
      { onSettled: () => setPassphrase("") },
    );
  };
  const done = restore.data;
  return (
    <Modal opened={opened} onClose={close} title="Restore the Local data from a backup" size="lg">
      {done ? (
        <Stack>
          <Alert color="green" title="Restored" role="status" data-testid="restore-done">
            Restored {countText(done.keys, "key")} of {countText(done.accounts, "account")} from the backup of{" "}
            {dateText(done.createdAt)}
            {done.remoteProfiles > 0
              ? `, and ${done.remoteProfiles} remote profiles with their passwords`
              : ""}
            .
            {done.previous && (
              <>
                {" "}
                The data that was there is kept in{" "}
                <Code style={{ wordBreak: "break-all" }}>{done.previous}</Code>.
              </>
            )}
          </Alert>
          <Group justify="flex-end" className="kd-sticky-footer">
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <Stack>
          {!automatic && !source && <SourcePicker inspect={inspect} />}
          {inspect.isPending && <Text size="sm">Reading the backup…</Text>}
          {inspect.isError && (
            <Alert color="red.9" role="alert" title="Cannot restore this file">
              {asSentence(errorText(inspect.error))}
            </Alert>
          )}
          {source && (
            <form
              noValidate
              data-testid="restore-form"
              onSubmit={(event) => {
                event.preventDefault();
                start();
              }}
            >
              <Stack>
                <Confirmation source={source} />
                <PasswordInput
                  label="The backup's passphrase"
                  description={
                    source.automatic
                      ? "Leave empty to use the automatic backups' passphrase kept in the OS keychain."
                      : undefined
                  }
                  required={!source.automatic}
                  data-autofocus
                  value={passphrase}
                  onChange={(event) => setPassphrase(event.currentTarget.value)}
                />
                {restore.isPending && <ProgressLine label="Restore progress" progress={progress} />}
                {restore.isError && (
                  <Alert color="red.9" role="alert" title="Not restored">
                    {asSentence(errorText(restore.error))} The Local data is unchanged and the service still
                    runs.
                  </Alert>
                )}
                <Group justify="flex-end" className="kd-sticky-footer">
                  <Button variant="default" onClick={close} disabled={restore.isPending}>
                    Cancel
                  </Button>
                  <Button
                    type="submit"
                    color="red"
                    loading={restore.isPending}
                    disabled={!source.automatic && passphrase === ""}
                  >
                    Replace the Local data
                  </Button>
                </Group>
              </Stack>
            </form>
          )}
        </Stack>
      )}
    </Modal>
  );
}
