import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { type DataDir, openDataDir } from "../../../../../electron/service/dataDir.ts";
import { newKeyId, newPublicApiKey } from "../../../../../electron/service/domain/identifiers.ts";
import { KeyUsageStore } from "../../../../../electron/service/store/keyUsageStore.ts";
import { UsageRecorder } from "../../../../../electron/service/usage/usageRecorder.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";
import { addStoredAccount } from "../../../../harness/tempDataDir.ts";

/** The usage recorder over a real SQLite data dir, on a clock the test moves. */

const HOUR = 3_600_000;
let dir: string;
let data: DataDir;
let key: { id: number; key: string };

before(async () => {
  dir = await makeTempDir();
  data = openDataDir({ dataDir: dir, dataKey: randomBytes(32) });
  const account = addStoredAccount(data, "owner");
  key = data.apiKeys.insert(
    account.id,
    account.accountKey,
    { key: newKeyId(), publicApiKey: newPublicApiKey() },
    { name: "k", allowedIPs: null, permissions: ["ALL"], validFrom: null, validTo: null, enabled: true },
    0,
  );
});
after(async () => {
  data?.close();
  await removeDir(dir);
});

function recorder(clock: { now: number }, failures: unknown[] = []) {
  return new UsageRecorder(data.store, {
    intervalMs: 3_600_000,
    now: () => clock.now,
    onError: (error) => failures.push(error),
  });
}

test("the last 24 hours count the current hour and the 23 before it; totals count everything", async () => {
  const clock = { now: Date.UTC(2026, 10, 1, 10, 30) };
  const usage = recorder(clock);
  try {
    usage.record(key.key, "allowed", clock.now, "10.0.0.1");
    usage.record(key.key, "expired", clock.now, "10.0.0.2");
    clock.now += HOUR; // an hour later: the first hour's counts are written first
    usage.record(key.key, "allowed", clock.now, "10.0.0.3");
    await usage.flush();
    let read = await usage.usageOf(key.key, key.id);
    assert.equal(read.total.allowed, 2);
    assert.equal(read.last24Hours.allowed, 2);
    assert.equal(read.total.refused.expired, 1);
    assert.equal(read.lastUsedFrom, "10.0.0.3");
    assert.equal(read.lastRefusedFrom, "10.0.0.2");

    clock.now += 23 * HOUR; // the first hour is now 24 hours back: out of the day
    read = await usage.usageOf(key.key, key.id);
    assert.equal(read.last24Hours.allowed, 1);
    assert.equal(read.last24Hours.refused.expired, 0);
    assert.equal(read.total.allowed, 2);

    usage.record(key.key, "allowed", clock.now, "10.0.0.4");
    await usage.flush(); // hours are kept 48 hours (the usage series): nothing pruned yet
    const hours = () =>
      (data.db.prepare("SELECT count(*) AS n FROM key_usage_hours").get() as { n: number }).n;
    assert.equal(hours(), 3);
    clock.now += 25 * HOUR; // the first two hours are now more than 48 hours back
    usage.record(key.key, "allowed", clock.now, "10.0.0.4");
    await usage.flush(); // writing prunes them
    assert.equal(hours(), 2);
  } finally {
    await usage.close();
  }
});

test("a batch the database refused is kept, read as counted, and written with the next", async () => {
  const clock = { now: Date.UTC(2026, 10, 5, 8) };
  const failures: unknown[] = [];
  const usage = recorder(clock, failures);
  const before = (await usage.usageOf(key.key, key.id)).total.allowed;
  try {
    usage.record(key.key, "allowed", clock.now, "10.0.0.5");
    data.db.pragma("query_only = ON");
    try {
      await usage.flush();
    } finally {
      data.db.pragma("query_only = OFF");
    }
    assert.equal(failures.length, 1);
    assert.equal((await usage.usageOf(key.key, key.id)).total.allowed, before + 1);
    usage.record(key.key, "allowed", clock.now, "10.0.0.6");
    await usage.flush();
    // Read by a store of its own: only what is in the database.
    assert.equal(new KeyUsageStore(data.db).read(key.id, clock.now).total.allowed, before + 2);
  } finally {
    await usage.close();
  }
});

test("the series counts calls not yet written in their hour and day at once, and the same after the write", async () => {
  const clock = { now: Date.UTC(2026, 10, 20, 23, 59, 59) };
  const usage = recorder(clock);
  try {
    const before = await usage.seriesOf(key.key, key.id);
    const today = before.days.at(-1)?.allowed ?? 0;
    usage.record(key.key, "allowed", clock.now, "10.0.0.7");
    usage.record(key.key, "address-not-allowed", clock.now, "10.9.9.9");
    let series = await usage.seriesOf(key.key, key.id);
    assert.equal(series.hours.at(-1)?.start, Date.UTC(2026, 10, 20, 23));
    assert.equal(series.hours.at(-1)?.allowed, 1);
    assert.equal(series.hours.at(-1)?.refused["address-not-allowed"], 1);
    assert.equal(series.days.at(-1)?.allowed, today + 1);
    await usage.flush();
    series = await usage.seriesOf(key.key, key.id);
    assert.equal(series.hours.at(-1)?.allowed, 1);
    assert.equal(series.days.at(-1)?.allowed, today + 1);
    // A second later is the next UTC day: the call is yesterday's and 1 hour back.
    clock.now += 1_000;
    series = await usage.seriesOf(key.key, key.id);
    assert.equal(series.hours.at(-2)?.allowed, 1);
    assert.equal(series.hours.at(-1)?.allowed, 0);
    assert.equal(series.days.at(-2)?.allowed, today + 1);
    assert.equal(series.days.at(-1)?.allowed, 0);
  } finally {
    await usage.close();
  }
});
