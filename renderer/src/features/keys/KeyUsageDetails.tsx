import { Stack, Text } from "@mantine/core";
import type { UsageCountsDto } from "../../../../shared/apiKeyRules.ts";
import type { ApiKeyView } from "../../../../shared/bridge.ts";
import { parseApiDateTime } from "../../../../shared/datetime.ts";
import { KeyUsageChart } from "./KeyUsageChart.tsx";
import { localDateTime, relativeTime } from "./keyState.ts";
import { createdText, refusalsInWords, refusedTotal, USAGE_NOT_REPORTED } from "./keyUsage.ts";

function Call(props: { label: string; at: string | null; from: string | null; now: number; testId: string }) {
  const time = props.at === null ? null : parseApiDateTime(props.at);
  return (
    <Text size="sm" data-testid={props.testId}>
      {props.label}:{" "}
      {time === null
        ? "never"
        : `${relativeTime(time, props.now)} (${localDateTime(time)})${props.from ? ` from ${props.from}` : ""}`}
    </Text>
  );
}

function Counts(props: { label: string; counts: UsageCountsDto; testId: string }) {
  const refused = refusedTotal(props.counts);
  return (
    <Text size="sm" data-testid={props.testId}>
      {props.label}: {props.counts.allowed.toLocaleString()} allowed, {refused.toLocaleString()} refused
      {refused > 0 ? ` (${refusalsInWords(props.counts)})` : ""}
    </Text>
  );
}

/**
 * The key's creation time and usage in the details panel: last calls, counts, refusals by rule,
 * and its calls over time where the service reports usage.
 */
export function KeyUsageDetails(props: { apiKey: ApiKeyView; accountKey: string; now: number }) {
  const { usage } = props.apiKey;
  const created = createdText(props.apiKey, props.now);
  return (
    <>
      <div>
        <Text size="xs" fw={600} c="dimmed">
          Created
        </Text>
        <Text size="sm" title={created.title} data-testid="key-details-created">
          {created.text === "—" ? created.title : `${created.text} (${created.title})`}
        </Text>
      </div>
      <div>
        <Text size="xs" fw={600} c="dimmed">
          Usage
        </Text>
        {usage === undefined ? (
          <Text size="sm" c="dimmed" data-testid="key-usage">
            {USAGE_NOT_REPORTED}
          </Text>
        ) : (
          <Stack gap={2} data-testid="key-usage">
            <Call
              label="Last allowed call"
              at={usage.lastUsedAt}
              from={usage.lastUsedFrom}
              now={props.now}
              testId="key-usage-last-used"
            />
            <Call
              label="Last refused call"
              at={usage.lastRefusedAt}
              from={usage.lastRefusedFrom}
              now={props.now}
              testId="key-usage-last-refused"
            />
            <Counts label="Last 24 hours" counts={usage.last24Hours} testId="key-usage-day" />
            <Counts label="Since creation" counts={usage.total} testId="key-usage-total" />
          </Stack>
        )}
      </div>
      {usage !== undefined && (
        <div>
          <Text size="xs" fw={600} c="dimmed">
            Usage over time
          </Text>
          <KeyUsageChart accountKey={props.accountKey} keyId={props.apiKey.key} />
        </div>
      )}
    </>
  );
}
