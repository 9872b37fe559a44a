import assert from "node:assert/strict";
import { test } from "node:test";
import { eventually } from "../../harness/eventually.ts";
import { request, type ServeProcess } from "../../harness/keyServiceProcess.ts";
import { postgresClusterForFile, skipWithoutPostgres } from "../../harness/postgres.ts";
import { REPLICA_OWNER, startReplicas } from "../../harness/postgresReplicas.ts";
import { declaredMetrics, parseSamples, sampleValue } from "../../harness/prometheusText.ts";

/**
 * `serve --metrics` on PostgreSQL, two replicas of one database: each reports its pool and its
 * LISTEN connection, and a write through one shows in the other's invalidation lag histogram.
 */

const KEYS = "/settings/1/accounts/_/api-keys";
const OWNER = REPLICA_OWNER;
const LAG_COUNT = "keydesk_cache_invalidation_lag_seconds_count";

const postgres = postgresClusterForFile();

async function scrape(replica: ServeProcess) {
  const res = await request(replica.url, { path: "/metrics" });
  assert.equal(res.status, 200, res.text);
  return { text: res.text, samples: parseSamples(res.text) };
}

test("replicas report their pool and LISTEN connection, and hear each other's writes late by a measured lag", async (t) => {
  if (skipWithoutPostgres(t)) return;
  const started = await startReplicas(postgres.cluster(), ["keydesk-replica-a", "keydesk-replica-b"], {
    KEY_SERVICE_METRICS: "1",
  });
  t.after(() => started.stop());
  const [a, b] = started.replicas as [ServeProcess, ServeProcess];

  const { text } = await scrape(b);
  const declared = declaredMetrics(text);
  for (const [name, type] of [
    ["keydesk_db_pool_connections_in_use", "gauge"],
    ["keydesk_db_pool_connections_idle", "gauge"],
    ["keydesk_db_pool_connections_max", "gauge"],
    ["keydesk_db_pool_waiting_requests", "gauge"],
    ["keydesk_change_feed_listening", "gauge"],
    ["keydesk_cache_invalidation_lag_seconds", "histogram"],
  ])
    assert.equal(declared.get(name as string), type, name);
  // PostgreSQL reads pages in the service's process: there are no list workers to report.
  assert.equal(declared.has("keydesk_list_workers_busy"), false);

  await eventually("B's LISTEN connection", async () =>
    sampleValue((await scrape(b)).samples, "keydesk_change_feed_listening") === 1 ? true : undefined,
  );
  const { samples } = await scrape(b);
  const max = sampleValue(samples, "keydesk_db_pool_connections_max");
  assert.equal(max, 10);
  const inUse = sampleValue(samples, "keydesk_db_pool_connections_in_use") ?? -1;
  const idle = sampleValue(samples, "keydesk_db_pool_connections_idle") ?? -1;
  assert.ok(inUse >= 0 && idle >= 0 && inUse + idle <= 10, `in use ${inUse}, idle ${idle}`);
  assert.equal(sampleValue(samples, "keydesk_db_pool_waiting_requests"), 0);

  const heardBefore = sampleValue(samples, LAG_COUNT) ?? 0;
  const created = await request(a.url, {
    method: "POST",
    path: KEYS,
    authorization: OWNER,
    body: { name: "lag" },
  });
  assert.equal(created.status, 200, created.text);
  const heard = await eventually("B to hear A's write", async () => {
    const count = sampleValue((await scrape(b)).samples, LAG_COUNT) ?? 0;
    return count > heardBefore ? count : undefined;
  });
  assert.ok(heard > heardBefore);
  const later = (await scrape(b)).samples;
  const sum = sampleValue(later, "keydesk_cache_invalidation_lag_seconds_sum") ?? -1;
  assert.ok(sum >= 0, "a lag is never negative");
});

test("a replica's account cache is counted: the first Basic sign-in reads the account, the next ones find it in memory", async (t) => {
  if (skipWithoutPostgres(t)) return;
  const started = await startReplicas(postgres.cluster(), ["keydesk-replica-c"], {
    KEY_SERVICE_METRICS: "1",
  });
  t.after(() => started.stop());
  const [replica] = started.replicas as [ServeProcess];
  const accounts = async (result: string) =>
    sampleValue((await scrape(replica)).samples, "keydesk_cache_lookups_total", {
      cache: "accounts",
      result,
    }) ?? 0;
  const signIn = async () => {
    const listed = await request(replica.url, { path: KEYS, authorization: OWNER });
    assert.equal(listed.status, 200, listed.text);
  };
  const missesBefore = await accounts("miss");
  await signIn();
  assert.ok((await accounts("miss")) > missesBefore, "the first sign-in read the account");
  // The cache keeps entries once the replica's change feed listens (its LISTEN connection opens
  // with the first read, and its opening drops what was kept before): from then on, two sign-ins
  // in a row are two hits. A loaded machine may take a few sign-ins to get there.
  const deadline = Date.now() + 15_000;
  for (;;) {
    const hitsBefore = await accounts("hit");
    await signIn();
    await signIn();
    if ((await accounts("hit")) - hitsBefore >= 2) break;
    assert.ok(Date.now() < deadline, "the later sign-ins found the account in memory");
  }
});
