import { Alert, Button, Checkbox, Group, Modal, SegmentedControl, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useState } from "react";
import type { KeySort } from "../../../../shared/apiKeyRules.ts";
import type { KeyQueryDto } from "../../../../shared/bridge.ts";
import { type ExportFormat, exportColumns } from "../../../../shared/keyExport.ts";
import { downloadHref } from "../../bridge.ts";
import { errorText } from "../../bridgeHooks.ts";
import { useProfileScope } from "../../profileScope.ts";
import { useExportKeys } from "./keyHooks.ts";
import { keysWord } from "./keysWord.ts";

/**
 * Export the keys in view (the table's filter and sort) as CSV or JSON. Main makes the file and
 * saves it (desktop: a save dialog) or keeps it for one download (browser host: the page goes to
 * its address and the browser saves it), so its content, and any publicApiKey, never reaches this
 * page's JS.
 */
export function ExportKeysDialog(props: {
  opened: boolean;
  accountKey: string;
  /** The account's name: the dialog says whose keys it writes. */
  accountName: string;
  query: KeyQueryDto;
  sort: KeySort | undefined;
  /** How many keys the file will hold, when counted. */
  count: number | undefined;
  onClose(): void;
}) {
  const exporter = useExportKeys();
  const profile = useProfileScope();
  const [format, setFormat] = useState<ExportFormat>("csv");
  const [withPublicApiKey, setWithPublicApiKey] = useState(false);
  const close = () => {
    exporter.reset();
    setWithPublicApiKey(false);
    props.onClose();
  };
  const submit = () =>
    exporter.mutate(
      {
        accountKey: props.accountKey,
        query: props.query,
        ...(props.sort && { sort: props.sort }),
        format,
        withPublicApiKey,
      },
      {
        onSuccess: (answer) => {
          if (answer.delivered === "download") {
            const link = document.createElement("a");
            link.href = downloadHref(answer.url);
            link.download = answer.fileName;
            link.click();
          }
          if (answer.delivered !== "cancelled") {
            notifications.show({
              color: "green",
              title: "Exported",
              message:
                answer.delivered === "file"
                  ? `${keysWord(answer.count)} saved to ${answer.path}.`
                  : `${keysWord(answer.count)} in ${answer.fileName}.`,
            });
          }
          close();
        },
      },
    );
  const filtered = Object.keys(props.query).length > 0;
  return (
    <Modal opened={props.opened} onClose={close} title="Export keys">
      <Stack data-testid="export-dialog">
        <Text size="sm" data-testid="export-scope">
          Profile <b>{profile.name}</b>, account <b>{props.accountName}</b>.
        </Text>
        <Text size="sm" data-testid="export-summary">
          {props.count === undefined
            ? filtered
              ? "The keys matching the filters"
              : "Every key of the account"
            : `${props.count} ${props.count === 1 ? "key" : "keys"}${filtered ? " matching the filters" : " (every key of the account)"}`}
          , in the order shown.
        </Text>
        <Text size="sm" data-testid="export-columns">
          {format === "csv" ? "Columns" : "Fields of each key"}:{" "}
          {exportColumns({ format, withPublicApiKey }).join(", ")}
          {format === "csv"
            ? " (enabled is true or false; state as the State column shows it; dates as the API writes them, last used and last refused empty if never)."
            : "."}
        </Text>
        <SegmentedControl
          value={format}
          onChange={(value) => setFormat(value as ExportFormat)}
          data={[
            { value: "csv", label: "CSV" },
            { value: "json", label: "JSON" },
          ]}
          aria-label="File format"
        />
        <Checkbox
          label="Include each key's publicApiKey"
          checked={withPublicApiKey}
          onChange={(event) => setWithPublicApiKey(event.currentTarget.checked)}
        />
        {withPublicApiKey && (
          <Alert
            color="orange"
            title="The file will hold working secrets"
            data-testid="export-secret-warning"
          >
            Anyone with the file can call the APIs as these keys. Keep it out of shared folders, mail and
            tickets, and delete it when done.
          </Alert>
        )}
        {exporter.error && (
          <Alert color="red" title="The keys were not exported">
            {errorText(exporter.error)}
          </Alert>
        )}
        <Group justify="flex-end" className="kd-sticky-footer">
          <Button variant="default" onClick={close}>
            Cancel
          </Button>
          <Button onClick={submit} loading={exporter.isPending} disabled={props.count === 0}>
            {props.count === undefined ? "Export" : `Export ${keysWord(props.count)}`}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
