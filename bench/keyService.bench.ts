import autocannon, { type AutocannonResult } from "autocannon";
import { request } from "../test/harness/keyServiceProcess.ts";
import { type KeyServiceFixture, SEEDED_SIZES } from "./keyServiceFixture.ts";
import type { Benchmark } from "./lib/benchmark.ts";
import { type Metric, metric } from "./lib/metrics.ts";
import { median, percentile } from "./lib/stats.ts";
import { BenchFailure, TimedClient } from "./lib/timedHttp.ts";

/** Benchmarks of the key service's HTTP API, against a real `key-service serve` process. */

const KEYS_PATH = "/settings/1/accounts/_/api-keys";
const CREATE_BODY = JSON.stringify({ name: "bench created key", permissions: ["ALL"] });

/** Fails the bench on any non-2xx answer, connection error or timeout during a load run. */
function requireClean(what: string, result: AutocannonResult, fixture: KeyServiceFixture): void {
  if (result.non2xx === 0 && result.errors === 0 && result.timeouts === 0) return;
  throw new BenchFailure(
    `${what}: ${result.non2xx} non-2xx answers (${JSON.stringify(result.statusCodeStats)}), ` +
      `${result.errors} errors, ${result.timeouts} timeouts; server stderr:\n${fixture.server.stderr()}`,
  );
}

function requireServerAlive(fixture: KeyServiceFixture): void {
  const { child } = fixture.server;
  if (child.exitCode !== null || child.signalCode !== null) {
    throw new BenchFailure(
      `key-service serve exited (${child.exitCode ?? child.signalCode}); stderr:\n${fixture.server.stderr()}`,
    );
  }
}

async function warmUp(fixture: KeyServiceFixture, authorization: string, path: string, body?: unknown) {
  // The first request with these credentials pays for scrypt; later ones hit the verified cache.
  const response = await request(fixture.server.url, {
    path,
    authorization,
    ...(body !== undefined && { body }),
  });
  if (response.status !== 200) {
    throw new BenchFailure(`warm-up ${path} answered ${response.status}: ${response.text.slice(0, 300)}`);
  }
  return response;
}

const creates: Benchmark = {
  name: "creates",
  description: "POST .../api-keys with 16 concurrent keep-alive clients for 10 s (autocannon)",
  async run(context) {
    const fixture = await context.keyService();
    const { authorization } = fixture.empty;
    await warmUp(fixture, authorization, KEYS_PATH, JSON.parse(CREATE_BODY));
    context.log("creates: 16 connections, 10 s ...");
    const result = await autocannon({
      url: `${fixture.server.url}${KEYS_PATH}`,
      method: "POST",
      headers: { authorization, "content-type": "application/json", accept: "application/json" },
      body: CREATE_BODY,
      connections: 16,
      duration: 10,
      timeout: 10,
    });
    requireClean("creates", result, fixture);
    requireServerAlive(fixture);

    // Every 2xx answer must be a key in the database (requests cut off at the end may add a few more).
    const listed = await warmUp(fixture, authorization, KEYS_PATH);
    const stored = (listed.json as { apiKeys: unknown[] }).apiKeys.length;
    const answered = result["2xx"] + 1;
    if (stored < answered || stored > answered + 16) {
      throw new BenchFailure(
        `creates: ${answered} creates answered 200 but the account holds ${stored} keys`,
      );
    }

    return [
      metric("creates", "throughput", result.requests.mean, "req/s", { atLeast: 2_000 }),
      metric("creates", "latencyP50", result.latency.p50, "ms"),
      metric("creates", "latencyP99", result.latency.p99, "ms"),
      metric("creates", "non2xx", result.non2xx, "count", { equals: 0 }),
      metric("creates", "created", result["2xx"], "count"),
    ];
  },
};

const LIST_RUNS: Record<(typeof SEEDED_SIZES)[number], number> = { 1000: 20, 10000: 20, 100000: 5 };
const sizeLabel = (size: number) => `${size / 1000}k`;

const list: Benchmark = {
  name: "list",
  description: "GET the full key list of accounts with 1k, 10k and 100k keys (sequential, keep-alive)",
  async run(context) {
    const fixture = await context.keyService();
    const metrics: Metric[] = [];
    for (const size of SEEDED_SIZES) {
      const account = fixture.seeded.get(size);
      if (!account) throw new Error(`no seeded account of ${size} keys`);
      const client = new TimedClient(fixture.server.url, { authorization: account.authorization });
      try {
        const warm = await warmUp(fixture, account.authorization, KEYS_PATH);
        const count = (warm.json as { apiKeys: unknown[] }).apiKeys.length;
        if (count !== size) throw new BenchFailure(`list of the ${size}-key account has ${count} keys`);
        const runs = LIST_RUNS[size];
        context.log(`list: ${size} keys, ${runs} runs ...`);
        const samples: number[] = [];
        let bytes = 0;
        for (let run = 0; run < runs; run++) {
          const response = await client.getOk(KEYS_PATH);
          samples.push(response.ms);
          bytes = response.body.length;
        }
        const label = sizeLabel(size);
        const target = size === 10_000 ? { below: 250 } : undefined;
        metrics.push(
          metric("list", `${label}.median`, median(samples), "ms", target),
          metric("list", `${label}.p95`, percentile(samples, 95), "ms", target),
          metric("list", `${label}.responseSize`, bytes, "bytes"),
        );
      } finally {
        client.close();
      }
    }
    requireServerAlive(fixture);
    return metrics;
  },
};

const LOOKUPS = 2_000;
const LOOKUP_WARM_UPS = 200;

const lookup: Benchmark = {
  name: "lookup",
  description:
    "GET .../api-keys?publicApiKey= in the 100k-key account: 2,000 sequential, then 16 connections for 5 s",
  async run(context) {
    const fixture = await context.keyService();
    const account = fixture.seeded.get(100_000);
    if (!account) throw new Error("no seeded account of 100000 keys");
    const pathOf = (publicApiKey: string) => `${KEYS_PATH}?publicApiKey=${encodeURIComponent(publicApiKey)}`;
    const randomKey = () =>
      account.publicApiKeys[Math.floor(Math.random() * account.publicApiKeys.length)] as string;
    await warmUp(fixture, account.authorization, pathOf(randomKey()));

    const client = new TimedClient(fixture.server.url, { authorization: account.authorization });
    const samples: number[] = [];
    try {
      context.log(`lookup: ${LOOKUP_WARM_UPS} warm-up + ${LOOKUPS} sequential lookups ...`);
      for (let index = 0; index < LOOKUP_WARM_UPS + LOOKUPS; index++) {
        const publicApiKey = randomKey();
        const response = await client.getOk(pathOf(publicApiKey));
        const found = (JSON.parse(response.body.toString("utf8")) as { apiKeys: { publicApiKey: string }[] })
          .apiKeys;
        if (found.length !== 1 || found[0]?.publicApiKey !== publicApiKey) {
          throw new BenchFailure(`lookup of an existing publicApiKey found ${found.length} keys`);
        }
        if (index >= LOOKUP_WARM_UPS) samples.push(response.ms);
      }
    } finally {
      client.close();
    }

    context.log("lookup: 16 connections, 5 s on one URL ...");
    const result = await autocannon({
      url: `${fixture.server.url}${pathOf(randomKey())}`,
      headers: { authorization: account.authorization, accept: "application/json" },
      connections: 16,
      duration: 5,
      timeout: 10,
    });
    requireClean("lookup", result, fixture);
    requireServerAlive(fixture);

    return [
      metric("lookup", "sequential.p50", percentile(samples, 50), "ms"),
      metric("lookup", "sequential.p99", percentile(samples, 99), "ms", { below: 5 }),
      metric("lookup", "throughput", result.requests.mean, "req/s"),
      metric("lookup", "concurrent.p50", result.latency.p50, "ms"),
      metric("lookup", "concurrent.p99", result.latency.p99, "ms"),
    ];
  },
};

export const keyServiceBenchmarks: readonly Benchmark[] = [creates, list, lookup];
