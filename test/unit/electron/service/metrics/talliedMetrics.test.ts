import assert from "node:assert/strict";
import { test } from "node:test";
import { Registry } from "prom-client";
import {
  counterCell,
  histogramCell,
  observeInto,
  TalliedHistogram,
  talliedCounter,
} from "../../../../../electron/service/metrics/talliedMetrics.ts";
import { declaredMetrics, parseSamples, sampleValue } from "../../../../harness/prometheusText.ts";

test("a tallied counter shows each cell's count at every scrape, zeros included", async () => {
  const registry = new Registry();
  const a = counterCell<"outcome">({ outcome: "a" });
  const b = counterCell<"outcome">({ outcome: "b" });
  talliedCounter(registry, { name: "t_total", help: "t", labelNames: ["outcome"] }, () => [a, b]);
  a.count += 3;
  let samples = parseSamples(await registry.metrics());
  assert.equal(sampleValue(samples, "t_total", { outcome: "a" }), 3);
  assert.equal(sampleValue(samples, "t_total", { outcome: "b" }), 0);
  a.count++;
  samples = parseSamples(await registry.metrics());
  assert.equal(sampleValue(samples, "t_total", { outcome: "a" }), 4, "a second scrape reads the count anew");
});

test("a tallied histogram answers cumulative buckets, +Inf, sum and count, as Prometheus reads them", async () => {
  const registry = new Registry();
  const bounds = [0.1, 1, 10];
  const cell = histogramCell<"route">({ route: "/r" }, bounds);
  new TalliedHistogram(registry, { name: "d_seconds", help: "d", labelNames: ["route"] }, bounds, () => [
    cell,
  ]);
  for (const value of [0.05, 0.1, 0.5, 2, 10, 11]) observeInto(cell, bounds, value);
  const text = await registry.metrics();
  assert.equal(declaredMetrics(text).get("d_seconds"), "histogram");
  const samples = parseSamples(text);
  const bucket = (le: string) => sampleValue(samples, "d_seconds_bucket", { route: "/r", le });
  // A bound includes the values equal to it (Prometheus' `le`).
  assert.deepEqual(["0.1", "1", "10", "+Inf"].map(bucket), [2, 3, 5, 6]);
  assert.equal(sampleValue(samples, "d_seconds_count", { route: "/r" }), 6);
  assert.ok(Math.abs((sampleValue(samples, "d_seconds_sum", { route: "/r" }) ?? 0) - 23.65) < 1e-9);
});

test("a histogram without cells declares itself and has no samples", async () => {
  const registry = new Registry();
  new TalliedHistogram(registry, { name: "e_seconds", help: "e", labelNames: [] }, [1], () => []);
  const text = await registry.metrics();
  assert.equal(declaredMetrics(text).get("e_seconds"), "histogram");
  assert.deepEqual(parseSamples(text), []);
});
