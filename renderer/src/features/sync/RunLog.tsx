import { Badge, Button, Group, Stack, Table, Text, Title } from "@mantine/core";
import { useState } from "react";
import type { SyncLinkDto } from "../../../../shared/sync.ts";
import { useLatestNow } from "../../useNow.ts";
import { WHOLE_BADGE } from "../../wholeBadge.ts";
import { formatSyncTime, runResultLook } from "./syncState.ts";

/** Runs shown before "Show all": the last few answer "did it run, and what did it do". */
const SHOWN_FIRST = 5;

/** The link's recent runs, newest first: when, keys pulled and pushed, conflicts left, the error. */
export function RunLog({ link }: { link: SyncLinkDto }) {
  const now = useLatestNow();
  const [all, setAll] = useState(false);
  const runs = all ? link.recentRuns : link.recentRuns.slice(0, SHOWN_FIRST);
  return (
    <Stack gap="xs" component="section" aria-label="Recent runs" data-testid="sync-run-log">
      <Title order={5}>Recent runs</Title>
      {link.recentRuns.length === 0 ? (
        <Text size="sm" data-testid="sync-run-log-empty">
          No run has finished yet.
        </Text>
      ) : (
        <Table aria-label={`Recent runs of link ${link.id}`} striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Ended</Table.Th>
              <Table.Th>Pulled</Table.Th>
              <Table.Th>Pushed</Table.Th>
              <Table.Th>Conflicts</Table.Th>
              <Table.Th>Result</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {runs.map((run) => {
              const ended = formatSyncTime(run.endedAt, now);
              return (
                <Table.Tr
                  key={`${run.startedAt} ${run.endedAt}`}
                  data-testid="sync-run"
                  data-failed={run.error !== null}
                >
                  <Table.Td title={ended.title} style={{ whiteSpace: "nowrap" }}>
                    {ended.text}
                  </Table.Td>
                  <Table.Td data-testid="sync-run-pulled">{run.pulled}</Table.Td>
                  <Table.Td data-testid="sync-run-pushed">{run.pushed}</Table.Td>
                  <Table.Td data-testid="sync-run-conflicts">{run.conflicts}</Table.Td>
                  <Table.Td data-testid="sync-run-result" style={{ overflowWrap: "anywhere" }}>
                    {run.error === null ? (
                      <Badge color={runResultLook(run).color} variant="dot" styles={WHOLE_BADGE}>
                        {runResultLook(run).label}
                      </Badge>
                    ) : (
                      <Text size="xs" c="light-dark(var(--mantine-color-red-9), var(--mantine-color-red-3))">
                        {run.error}
                      </Text>
                    )}
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      )}
      {link.recentRuns.length > SHOWN_FIRST && (
        <Group>
          <Button size="compact-sm" variant="subtle" onClick={() => setAll(!all)}>
            {all ? `Show the last ${SHOWN_FIRST}` : `Show all ${link.recentRuns.length}`}
          </Button>
        </Group>
      )}
    </Stack>
  );
}
