import { BarChart } from "@mantine/charts";
import { Alert, Group, Loader, SegmentedControl, Stack, Text } from "@mantine/core";
import { useState } from "react";
import { errorText } from "../../bridgeHooks.ts";
import { zoneName } from "../../time.ts";
import { useKeyUsageSeries } from "./keyHooks.ts";
import {
  PERIOD_WORDS,
  type SeriesPeriod,
  seriesRows,
  seriesSummary,
  seriesTicks,
  seriesTotals,
} from "./keyUsageSeries.ts";

const PERIODS = [
  { value: "hours", label: "48 h" },
  { value: "days", label: "30 d" },
];

const SERIES = [
  { name: "allowed", label: "Allowed", color: "teal.6" },
  { name: "refused", label: "Refused", color: "red.6" },
];

/**
 * The key's calls over time in its details: allowed and refused stacked per hour (48 hours) or per
 * UTC day (30 days), with the totals in words (the chart's accessible name too).
 */
export function KeyUsageChart(props: { accountKey: string; keyId: string }) {
  const series = useKeyUsageSeries(props.accountKey, props.keyId);
  const [period, setPeriod] = useState<SeriesPeriod>("hours");
  if (series.isPending) return <Loader size="xs" aria-label="Loading the usage over time" />;
  if (series.isError) {
    return (
      <Alert color="red" variant="light" data-testid="key-usage-chart-error">
        The usage over time could not be read: {errorText(series.error)}
      </Alert>
    );
  }
  const data = series.data;
  if (!data.recorded) {
    return (
      <Text size="sm" c="dimmed" data-testid="key-usage-chart-none">
        This service does not record the usage of keys over time.
      </Text>
    );
  }
  const month = seriesTotals(data.days);
  if (month.allowed + month.refused === 0) {
    return (
      <Text size="sm" c="dimmed" data-testid="key-usage-chart-empty">
        No calls in {PERIOD_WORDS.days}
      </Text>
    );
  }
  const buckets = data[period];
  const summary = seriesSummary(buckets, period);
  const rows = seriesRows(buckets, period);
  const labels = new Map(rows.map((row) => [row.key, row.label]));
  const ticks = seriesTicks(rows, period);
  const ticked = ticks === undefined ? undefined : new Set(ticks);
  return (
    <Stack gap={4} mb="xs" data-testid="key-usage-chart">
      <Group justify="space-between" gap="xs" wrap="nowrap">
        <Text size="sm" data-testid="key-usage-chart-summary" aria-live="polite">
          {summary}
        </Text>
        <SegmentedControl
          size="xs"
          data={PERIODS}
          value={period}
          onChange={(value) => setPeriod(value as SeriesPeriod)}
          aria-label="Period of the usage chart"
        />
      </Group>
      <BarChart
        h={164}
        role="img"
        aria-label={`Calls per ${period === "hours" ? "hour" : "day"}: ${summary}`}
        data={rows}
        // Keyed by the bar's start: hour labels repeat across the two days.
        dataKey="key"
        // Hours are local (the zone named, as a DST change or a colleague's screenshot needs), days UTC.
        xAxisLabel={period === "hours" ? `Hour (${zoneName(Date.now())})` : "Day (UTC)"}
        type="stacked"
        series={SERIES}
        withLegend
        legendProps={{ verticalAlign: "bottom", height: 24 }}
        tickLine="y"
        gridAxis="x"
        maxBarWidth={16}
        xAxisProps={
          ticked === undefined
            ? {
                interval: "preserveStartEnd",
                minTickGap: 16,
                tickFormatter: (key: string) => labels.get(key) ?? key,
              }
            : {
                // 48 hours: every bar has its tick and only the chosen ones (each day change among
                // them) are labelled, so no thinning by the chart can skip a day change.
                interval: 0,
                tickFormatter: (key: string) => (ticked.has(key) ? (labels.get(key) ?? key) : ""),
              }
        }
        yAxisProps={{ allowDecimals: false, width: 40 }}
        tooltipAnimationDuration={0}
        tooltipProps={{
          labelFormatter: (label, payload) =>
            (payload[0]?.payload as { title?: string })?.title ?? labels.get(String(label)) ?? label,
        }}
      />
    </Stack>
  );
}
