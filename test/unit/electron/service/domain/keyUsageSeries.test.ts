import assert from "node:assert/strict";
import { test } from "node:test";
import { hourOf, noCounts } from "../../../../../electron/service/domain/keyUsage.ts";
import {
  addHourCounts,
  dayOf,
  dayOfHour,
  emptyUsageByTime,
  lastPrunedDay,
  lastPrunedHour,
  SERIES_DAYS,
  SERIES_HOURS,
  usageSeriesOf,
} from "../../../../../electron/service/domain/keyUsageSeries.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 10, 29, 3, 25, 10);

const counts = (allowed: number, expired = 0) => {
  const value = noCounts();
  value.allowed = allowed;
  value.refused.expired = expired;
  return value;
};

test("an hour falls in the UTC day its start is in, also at a day's first and last hour", () => {
  assert.equal(dayOfHour(hourOf(Date.UTC(2026, 10, 29, 0, 0))), dayOf(Date.UTC(2026, 10, 29, 12)));
  assert.equal(dayOfHour(hourOf(Date.UTC(2026, 10, 29, 23, 59))), dayOf(Date.UTC(2026, 10, 29)));
  assert.equal(dayOfHour(hourOf(Date.UTC(2026, 10, 28, 23, 59))), dayOf(Date.UTC(2026, 10, 29)) - 1);
});

test("the series is 48 hours and 30 days, oldest first, the current hour and day last, zero-filled", () => {
  const series = usageSeriesOf(emptyUsageByTime(), NOW);
  assert.equal(series.hours.length, SERIES_HOURS);
  assert.equal(series.days.length, SERIES_DAYS);
  assert.equal(series.hours.at(-1)?.start, Date.UTC(2026, 10, 29, 3));
  assert.equal(series.hours[0]?.start, Date.UTC(2026, 10, 29, 3) - 47 * HOUR);
  assert.equal(series.days.at(-1)?.start, Date.UTC(2026, 10, 29));
  assert.equal(series.days[0]?.start, Date.UTC(2026, 10, 29) - 29 * DAY);
  for (const bucket of [...series.hours, ...series.days]) {
    assert.deepEqual({ allowed: bucket.allowed, refused: bucket.refused }, noCounts());
  }
});

test("counts of an hour go to its hour and its day, add up, and buckets outside the series are left out", () => {
  const byTime = emptyUsageByTime();
  const now = hourOf(NOW);
  addHourCounts(byTime, now, counts(2, 1));
  addHourCounts(byTime, now, counts(3));
  addHourCounts(byTime, now - 5, counts(1)); // 22:00 yesterday
  addHourCounts(byTime, now - 48, counts(7)); // just before the 48 hours: in its day only
  addHourCounts(byTime, now - 40 * 24, counts(9)); // long ago: in no bucket
  const series = usageSeriesOf(byTime, NOW);
  assert.equal(series.hours.at(-1)?.allowed, 5);
  assert.equal(series.hours.at(-1)?.refused.expired, 1);
  assert.equal(series.hours.at(-6)?.allowed, 1);
  assert.equal(
    series.hours.reduce((sum, bucket) => sum + bucket.allowed, 0),
    6,
  );
  // Today (03:00) holds this hour's 5; yesterday the 22:00 call; the day before, the hour 48 back.
  assert.deepEqual(
    series.days.slice(-3).map((bucket) => bucket.allowed),
    [7, 1, 5],
  );
  assert.equal(
    series.days.reduce((sum, bucket) => sum + bucket.allowed, 0),
    13,
  );
});

test("the buckets answered are copies: changing one changes nothing stored", () => {
  const byTime = emptyUsageByTime();
  addHourCounts(byTime, hourOf(NOW), counts(1, 1));
  const series = usageSeriesOf(byTime, NOW);
  (series.hours.at(-1) as { refused: { expired: number } }).refused.expired = 99;
  assert.equal(byTime.hours.get(hourOf(NOW))?.refused.expired, 1);
});

test("pruning keeps exactly the hours and days a series can show", () => {
  // Hours after lastPrunedHour are the 48 of the series; days after lastPrunedDay the 30.
  assert.equal(hourOf(NOW) - lastPrunedHour(NOW), SERIES_HOURS);
  assert.equal(dayOf(NOW) - lastPrunedDay(NOW), SERIES_DAYS);
  const series = usageSeriesOf(emptyUsageByTime(), NOW);
  assert.equal(hourOf(series.hours[0]?.start as number), lastPrunedHour(NOW) + 1);
  assert.equal(dayOf(series.days[0]?.start as number), lastPrunedDay(NOW) + 1);
});
