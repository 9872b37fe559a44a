import assert from "node:assert/strict";
import { test } from "node:test";
import type { UsageBucketDto } from "../../../../../shared/apiKeyRules.ts";

// West of UTC, where a UTC day's start is the evening before in local time: the labels must not
// show that day. Set before the module makes its formatters.
process.env.TZ = "America/New_York";
const { seriesRows, seriesSummary, seriesTicks, seriesTotals } = await import(
  "../../../../../renderer/src/features/keys/keyUsageSeries.ts"
);

const none = { disabled: 0, "not-yet-valid": 0, expired: 0, "address-not-allowed": 0, "tfa-only": 0 };
const bucket = (start: string, allowed: number, refused = none): UsageBucketDto => ({
  start,
  allowed,
  refused,
});

test("a bar's refused calls are the sum over the rules; allowed stays apart", () => {
  const rows = seriesRows(
    [
      bucket("2026-11-28T00:00:00.000+0000", 5, { ...none, expired: 2, "tfa-only": 1 }),
      bucket("2026-11-29T00:00:00.000+0000", 0),
    ],
    "days",
  );
  assert.deepEqual(
    rows.map(({ allowed, refused }) => ({ allowed, refused })),
    [
      { allowed: 5, refused: 3 },
      { allowed: 0, refused: 0 },
    ],
  );
});

test("days are labelled with their UTC date, whatever the local time zone; hours with the local time", () => {
  const [row] = seriesRows([bucket("2026-11-28T00:00:00.000+0000", 1)], "days");
  assert.match(row?.label ?? "", /28/);
  assert.doesNotMatch(row?.label ?? "", /27/);
  assert.match(row?.label ?? "", /Nov/);
  assert.match(row?.title ?? "", /\(UTC\)$/);
  const [, hour] = seriesRows(
    [bucket("2026-11-28T14:00:00.000+0000", 1), bucket("2026-11-28T15:00:00.000+0000", 1)],
    "hours",
  );
  assert.match(hour?.label ?? "", /10/); // 15:00 UTC is 10:00 in New York in November
});

test("a start that is no API datetime labels its bar '?' rather than failing the chart", () => {
  assert.equal(seriesRows([bucket("yesterday", 1)], "hours")[0]?.label, "?");
});

test("the summary says the totals and the period, or that there were no calls", () => {
  const buckets = [
    bucket("2026-11-29T01:00:00.000+0000", 300, { ...none, disabled: 1 }),
    bucket("2026-11-29T02:00:00.000+0000", 12, { ...none, "address-not-allowed": 3 }),
  ];
  assert.deepEqual(seriesTotals(buckets), { allowed: 312, refused: 4 });
  assert.equal(seriesSummary(buckets, "hours"), "312 allowed, 4 refused in the last 48 hours");
  assert.equal(
    seriesSummary([bucket("2026-11-29T00:00:00.000+0000", 0)], "days"),
    "No calls in the last 30 days",
  );
});

test("48 hours: the first bar and the first bar of each new day carry the date, the other bars the hour only", () => {
  const start = Date.parse("2026-11-27T12:00:00.000Z");
  const hours = Array.from({ length: 48 }, (_, i) =>
    bucket(new Date(start + i * 3600_000).toISOString().replace("Z", "+0000"), 0),
  );
  const rows = seriesRows(hours, "hours");
  const dated = rows.flatMap((row, i) => (/Nov/.test(row.label) ? [i] : []));
  const dayOf = (i: number) => new Date(start + i * 3600_000).toDateString();
  const changes = [0, ...hours.flatMap((_, i) => (i > 0 && dayOf(i) !== dayOf(i - 1) ? [i] : []))];
  assert.deepEqual(dated, changes);
  assert.ok(changes.length >= 2, "two days at least in 48 hours");
});

test("48 hours: the axis ticks each day change, bars are keyed uniquely, ticks keep a gap", () => {
  const start = Date.parse("2026-11-27T14:00:00.000Z"); // 9 AM in New York
  const hours = Array.from({ length: 48 }, (_, i) =>
    bucket(new Date(start + i * 3600_000).toISOString().replace("Z", "+0000"), 0),
  );
  const rows = seriesRows(hours, "hours");
  assert.equal(new Set(rows.map((row) => row.key)).size, 48, "hour labels repeat, keys do not");
  const ticks = seriesTicks(rows, "hours") ?? [];
  const indices = ticks.map((key) => rows.findIndex((row) => row.key === key));
  const dayOf = (i: number) => new Date(start + i * 3600_000).toDateString();
  const changes = hours.flatMap((_, i) => (i > 0 && dayOf(i) !== dayOf(i - 1) ? [i] : []));
  assert.deepEqual(changes, [15, 39]);
  for (const change of changes) assert.ok(indices.includes(change), `day change at bar ${change} ticked`);
  assert.ok(indices.includes(0), "the first bar, far from a day change, is ticked");
  assert.deepEqual(
    indices,
    [...indices].sort((a, b) => a - b),
  );
  for (let i = 1; i < indices.length; i++) {
    assert.ok((indices[i] as number) - (indices[i - 1] as number) >= 5, JSON.stringify(indices));
  }
  assert.ok(indices.length >= 6, `hours between the days are ticked too: ${JSON.stringify(indices)}`);
  assert.equal(seriesTicks(seriesRows(hours, "days"), "days"), undefined);
});

test("48 hours starting in the evening: the first bar's date is left out where it would crowd the next day's", () => {
  const start = Date.parse("2026-11-27T23:00:00.000Z"); // 6 PM in New York: the next day begins 6 bars on
  const hours = Array.from({ length: 48 }, (_, i) =>
    bucket(new Date(start + i * 3600_000).toISOString().replace("Z", "+0000"), 0),
  );
  const rows = seriesRows(hours, "hours");
  const indices = (seriesTicks(rows, "hours") ?? []).map((key) => rows.findIndex((row) => row.key === key));
  assert.ok(indices.includes(6), `the day change at bar 6 is ticked: ${JSON.stringify(indices)}`);
  assert.ok(!indices.includes(0), `the first bar's date would crowd it: ${JSON.stringify(indices)}`);
});
