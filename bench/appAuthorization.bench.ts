import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import autocannon, { type AutocannonResult } from "autocannon";
import { request, startServe } from "../test/harness/keyServiceProcess.ts";
import type { KeyServiceFixture } from "./keyServiceFixture.ts";
import type { Benchmark } from "./lib/benchmark.ts";
import { metric } from "./lib/metrics.ts";
import { percentile } from "./lib/stats.ts";
import { BenchFailure, TimedClient } from "./lib/timedHttp.ts";

/**
 * App-key authorization on the hot path: PIN status requests with a TFA key against the key
 * service, side by side with a bare node:http server answering the same JSON body, and the
 * refusal path of a disabled key under the same load.
 */

const CONNECTIONS = 50;
const SECONDS = 10;

async function ok(fixture: KeyServiceFixture, method: string, path: string, body?: unknown) {
  const response = await request(fixture.server.url, {
    method,
    path,
    authorization: fixture.empty.authorization,
    ...(body !== undefined && { body }),
  });
  if (response.status !== 200)
    throw new BenchFailure(`${method} ${path}: ${response.status} ${response.text}`);
  return response.json as Record<string, unknown>;
}

/** A PIN to ask the status of, a TFA key allowed to ask, and a disabled key that is refused. */
async function setUp(fixture: KeyServiceFixture) {
  const application = await ok(fixture, "POST", "/2fa/2/applications", { name: "bench" });
  const applicationId = application.applicationId as string;
  const template = await ok(fixture, "POST", `/2fa/2/applications/${applicationId}/messages`, {
    messageText: "Your code is {{pin}}",
    pinType: "NUMERIC",
  });
  const pin = await ok(fixture, "POST", "/2fa/2/pin?ncNeeded=false", {
    applicationId,
    messageId: template.messageId,
    to: "41793026727",
  });
  const keysPath = "/settings/1/accounts/_/api-keys";
  const tfa = await ok(fixture, "POST", keysPath, { name: "bench tfa", permissions: ["TFA"] });
  const disabled = await ok(fixture, "POST", keysPath, { name: "bench disabled", permissions: ["TFA"] });
  await ok(fixture, "PUT", `${keysPath}/${disabled.key}`, { enabled: false });
  return {
    statusPath: `/2fa/2/pin/${pin.pinId}/status`,
    tfaKey: tfa.publicApiKey as string,
    disabledKey: disabled.publicApiKey as string,
  };
}

function startPlainServer(body: string): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, "plainJsonServer.ts")], {
    env: { ...process.env, BENCH_BODY: body },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.on("exit", (code) => reject(new BenchFailure(`plain server exited (${code})`)));
    createInterface({ input: child.stdout }).once("line", (line) => {
      resolve({ url: `http://127.0.0.1:${line.split(" ")[1]}`, stop: () => child.kill("SIGTERM") });
    });
  });
}

function load(url: string, authorization?: string): Promise<AutocannonResult> {
  return autocannon({
    url,
    headers: { accept: "application/json", ...(authorization && { authorization }) },
    connections: CONNECTIONS,
    duration: SECONDS,
    timeout: 10,
  });
}

function onlyStatus(what: string, result: AutocannonResult, status: string): void {
  const codes = Object.keys(result.statusCodeStats);
  if (result.errors > 0 || result.timeouts > 0 || codes.length !== 1 || codes[0] !== status) {
    throw new BenchFailure(
      `${what}: expected only ${status} answers, got ${JSON.stringify(result.statusCodeStats)}, ` +
        `${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
}

export const appAuthorization: Benchmark = {
  name: "app-auth",
  description: `PIN status with an App TFA key vs a bare node:http server (${CONNECTIONS} connections, ${SECONDS} s each)`,
  async run(context) {
    const fixture = await context.keyService();
    const { statusPath, tfaKey, disabledKey } = await setUp(fixture);
    const statusUrl = `${fixture.server.url}${statusPath}`;
    const sample = await request(fixture.server.url, { path: statusPath, authorization: `App ${tfaKey}` });
    if (sample.status !== 200) throw new BenchFailure(`PIN status answered ${sample.status}: ${sample.text}`);

    const plain = await startPlainServer(sample.text);
    let baseline: AutocannonResult;
    try {
      context.log(`app-auth: bare node:http server, ${CONNECTIONS} connections, ${SECONDS} s ...`);
      baseline = await load(plain.url);
      onlyStatus("plain server", baseline, "200");
    } finally {
      plain.stop();
    }

    context.log("app-auth: PIN status with an App TFA key ...");
    const authorized = await load(statusUrl, `App ${tfaKey}`);
    onlyStatus("PIN status", authorized, "200");

    // The same load on a second serve process over the same data with usage recording off: what
    // recording the usage of keys costs the hot path, in one run.
    context.log("app-auth: PIN status with an App TFA key, usage recording off (--usage off) ...");
    const unrecorded = await startServe({ dataDir: fixture.server.dataDir, args: ["--usage", "off"] });
    let withoutUsage: AutocannonResult;
    try {
      withoutUsage = await load(`${unrecorded.url}${statusPath}`, `App ${tfaKey}`);
      onlyStatus("PIN status, usage off", withoutUsage, "200");
    } finally {
      await unrecorded.stop("SIGTERM");
    }

    context.log("app-auth: PIN status with a disabled key (refusals) ...");
    const refused = await load(statusUrl, `App ${disabledKey}`);
    onlyStatus("disabled key", refused, "403");

    // autocannon records latencies of 2xx answers only: time the refusals one by one instead.
    const client = new TimedClient(fixture.server.url, { authorization: `App ${disabledKey}` });
    const refusalTimes: number[] = [];
    try {
      for (let i = 0; i < 2_000; i++) {
        const response = await client.get(statusPath);
        if (response.status !== 403) throw new BenchFailure(`disabled key answered ${response.status}`);
        refusalTimes.push(response.ms);
      }
    } finally {
      client.close();
    }

    const ratio = authorized.requests.mean / baseline.requests.mean;
    return [
      metric("app-auth", "plain.throughput", baseline.requests.mean, "req/s"),
      metric("app-auth", "plain.latencyP99", baseline.latency.p99, "ms"),
      metric("app-auth", "authorized.throughput", authorized.requests.mean, "req/s"),
      metric("app-auth", "authorized.latencyP99", authorized.latency.p99, "ms", { below: 10 }),
      metric("app-auth", "authorized.ratioToPlain", ratio, "x", { atLeast: 0.6 }),
      metric("app-auth", "authorized.usageOff.throughput", withoutUsage.requests.mean, "req/s"),
      metric(
        "app-auth",
        "authorized.usageOff.ratioToPlain",
        withoutUsage.requests.mean / baseline.requests.mean,
        "x",
      ),
      // Issue 14: recording usage keeps the ratio to plain node:http within 5% of the ratio without it.
      metric(
        "app-auth",
        "authorized.usageRecordingCost",
        (1 - authorized.requests.mean / withoutUsage.requests.mean) * 100,
        "%",
        { below: 5 },
      ),
      metric("app-auth", "refused.throughput", refused.requests.mean, "req/s"),
      metric("app-auth", "refused.ratioToPlain", refused.requests.mean / baseline.requests.mean, "x", {
        atLeast: 0.6,
      }),
      metric("app-auth", "refused.sequentialP99", percentile(refusalTimes, 99), "ms"),
    ];
  },
};
