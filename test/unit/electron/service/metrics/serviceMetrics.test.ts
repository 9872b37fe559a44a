import assert from "node:assert/strict";
import { test } from "node:test";
import { UNMATCHED_ROUTE } from "../../../../../electron/service/http/requestMetrics.ts";
import type { KeyLister } from "../../../../../electron/service/keyListing.ts";
import {
  type MetricsSources,
  ServiceMetrics,
} from "../../../../../electron/service/metrics/serviceMetrics.ts";
import type { ChangeFeed } from "../../../../../electron/service/store/store.ts";
import { declaredMetrics, parseSamples, sampleValue } from "../../../../harness/prometheusText.ts";

const none = () => () => {};
/** A SQLite-like feed: no LISTEN connection, nothing heard. */
const sqliteFeed: ChangeFeed = {
  generation: () => 0,
  onKeyChange: none,
  onAccountChange: none,
  onPinChange: none,
};
const lister = { workerCounts: () => ({ running: 2, busy: 1 }) } as unknown as KeyLister;

/** Metrics watching `sources`, as buildHttpApp makes them. */
function metricsOf(sources: MetricsSources): ServiceMetrics {
  const metrics = new ServiceMetrics();
  metrics.watch(sources);
  return metrics;
}

async function scrape(metrics: ServiceMetrics) {
  const { contentType, text } = await metrics.scrape();
  assert.match(contentType, /^text\/plain; version=0\.0\.4/);
  return { text, samples: parseSamples(text), declared: declaredMetrics(text) };
}

test("every metric of a SQLite service is declared, and the process's own (CPU, memory, event loop) too", async () => {
  const { declared } = await scrape(metricsOf({ changes: sqliteFeed, lister }));
  for (const [name, type] of [
    ["keydesk_http_requests_total", "counter"],
    ["keydesk_http_request_duration_seconds", "histogram"],
    ["keydesk_app_authorizations_total", "counter"],
    ["keydesk_cache_lookups_total", "counter"],
    ["keydesk_storage_failures_total", "counter"],
    ["keydesk_tfa_pins_sent_total", "counter"],
    ["keydesk_sync_runs_total", "counter"],
    ["keydesk_sync_run_duration_seconds", "histogram"],
    ["keydesk_list_workers_running", "gauge"],
    ["keydesk_list_workers_busy", "gauge"],
    ["process_cpu_seconds_total", "counter"],
    ["process_resident_memory_bytes", "gauge"],
    ["nodejs_eventloop_lag_p99_seconds", "gauge"],
  ])
    assert.equal(declared.get(name as string), type, name);
  // PostgreSQL's are absent where there is no pool and no LISTEN connection.
  for (const name of declared.keys()) assert.doesNotMatch(name, /pool|change_feed|invalidation/);
});

test("two services in one process keep apart registries", async () => {
  const one = metricsOf({ changes: sqliteFeed, lister });
  const two = metricsOf({ changes: sqliteFeed, lister });
  one.appAuthorization("allowed");
  const first = (await scrape(one)).samples;
  const second = (await scrape(two)).samples;
  assert.equal(sampleValue(first, "keydesk_app_authorizations_total", { outcome: "allowed" }), 1);
  assert.equal(sampleValue(second, "keydesk_app_authorizations_total", { outcome: "allowed" }), 0);
});

test("requests count by route template, method and status; unknown paths under one value", async () => {
  const metrics = metricsOf({ changes: sqliteFeed, lister });
  const keys = metrics.route("/settings/1/accounts/:accountKey/api-keys");
  keys("POST", 200, 0.002);
  keys("POST", 200, 0.004);
  keys("POST", 400, 0.001);
  keys("GET", 200, 0.0001);
  metrics.route(UNMATCHED_ROUTE)("GET", 404, 0.0002);
  // A path's methods may be routes of their own: one template is one set of series.
  metrics.route("/settings/1/accounts/:accountKey/api-keys")("POST", 400, 0.001);
  const { samples } = await scrape(metrics);
  const route = "/settings/1/accounts/:accountKey/api-keys";
  const count = (labels: Record<string, string>) =>
    sampleValue(samples, "keydesk_http_requests_total", labels);
  assert.equal(count({ route, method: "POST", status: "200" }), 2);
  assert.equal(count({ route, method: "POST", status: "400" }), 2);
  assert.equal(count({ route, method: "GET", status: "200" }), 1);
  assert.equal(count({ route: "unmatched", method: "GET", status: "404" }), 1);
  const bucket = (le: string) =>
    sampleValue(samples, "keydesk_http_request_duration_seconds_bucket", {
      route,
      method: "POST",
      status: "200",
      le,
    });
  assert.deepEqual([bucket("0.001"), bucket("0.0025"), bucket("0.005"), bucket("+Inf")], [0, 1, 2, 2]);
});

test("App authorizations by outcome and refusing rule, every rule shown from the start", async () => {
  const metrics = metricsOf({ changes: sqliteFeed, lister });
  metrics.appAuthorization("allowed");
  metrics.appAuthorization("allowed");
  metrics.appAuthorization("expired");
  metrics.appAuthorization("unknown-key");
  const { samples } = await scrape(metrics);
  const value = (labels: Record<string, string>) =>
    sampleValue(samples, "keydesk_app_authorizations_total", labels);
  assert.equal(value({ outcome: "allowed" }), 2);
  assert.equal(value({ outcome: "refused", rule: "expired" }), 1);
  assert.equal(value({ outcome: "refused", rule: "unknown-key" }), 1);
  for (const rule of ["disabled", "not-yet-valid", "address-not-allowed", "tfa-only"])
    assert.equal(value({ outcome: "refused", rule }), 0, rule);
});

test("cache lookups, PINs, storage failures, sync runs and list workers", async () => {
  const metrics = metricsOf({ changes: sqliteFeed, lister });
  metrics.appKeyLookups.hits += 5;
  metrics.appKeyLookups.misses += 1;
  metrics.pinStatusLookups.misses += 2;
  metrics.pinSent("SMS", "send");
  metrics.pinSent("VOICE", "resend");
  metrics.storageFailure();
  metrics.syncRun({ ok: true, durationMs: 1500 });
  metrics.syncRun({ ok: false, failure: "unavailable", durationMs: 200 });
  const { samples } = await scrape(metrics);
  const value = sampleValue.bind(undefined, samples);
  assert.equal(value("keydesk_cache_lookups_total", { cache: "app_keys", result: "hit" }), 5);
  assert.equal(value("keydesk_cache_lookups_total", { cache: "app_keys", result: "miss" }), 1);
  assert.equal(value("keydesk_cache_lookups_total", { cache: "pin_status", result: "miss" }), 2);
  assert.equal(value("keydesk_tfa_pins_sent_total", { channel: "sms", kind: "send" }), 1);
  assert.equal(value("keydesk_tfa_pins_sent_total", { channel: "voice", kind: "resend" }), 1);
  assert.equal(value("keydesk_storage_failures_total"), 1);
  assert.equal(value("keydesk_sync_runs_total", { outcome: "success" }), 1);
  assert.equal(value("keydesk_sync_runs_total", { outcome: "failure", reason: "unavailable" }), 1);
  assert.equal(value("keydesk_sync_run_duration_seconds_sum", { outcome: "success" }), 1.5);
  assert.equal(value("keydesk_list_workers_running"), 2);
  assert.equal(value("keydesk_list_workers_busy"), 1);
});

test("on PostgreSQL: the pool read when scraped, the LISTEN state, and how late changes are heard", async () => {
  const pool = { totalCount: 7, idleCount: 3, waitingCount: 4, options: { max: 7 } };
  const heard = new Set<(sentAt: number) => void>();
  let listening = true;
  const feed: ChangeFeed = {
    ...sqliteFeed,
    get listening() {
      return listening;
    },
    onChangesHeard(listener) {
      heard.add(listener);
      return () => heard.delete(listener);
    },
  };
  const metrics = metricsOf({ changes: feed, lister, pool });
  for (const listener of heard) {
    listener(Date.now() - 30);
    // A clock a little behind the writer's is no negative lag.
    listener(Date.now() + 5);
  }
  let { samples } = await scrape(metrics);
  const value = (name: string, labels?: Record<string, string>) => sampleValue(samples, name, labels);
  assert.equal(value("keydesk_db_pool_connections_in_use"), 4);
  assert.equal(value("keydesk_db_pool_connections_idle"), 3);
  assert.equal(value("keydesk_db_pool_connections_max"), 7);
  assert.equal(value("keydesk_db_pool_waiting_requests"), 4);
  assert.equal(value("keydesk_change_feed_listening"), 1);
  assert.equal(value("keydesk_cache_invalidation_lag_seconds_count"), 2);
  assert.equal(value("keydesk_cache_invalidation_lag_seconds_bucket", { le: "0.001" }), 1);
  pool.idleCount = 7;
  pool.waitingCount = 0;
  listening = false;
  ({ samples } = await scrape(metrics));
  assert.equal(value("keydesk_db_pool_connections_in_use"), 0);
  assert.equal(value("keydesk_db_pool_waiting_requests"), 0);
  assert.equal(value("keydesk_change_feed_listening"), 0);
  metrics.close();
  assert.equal(heard.size, 0, "closed metrics hear no more");
});
