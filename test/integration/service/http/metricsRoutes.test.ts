import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { after, test } from "node:test";
import type { HTTPMethods } from "fastify";
import { openDataDir } from "../../../../electron/service/dataDir.ts";
import { ApiError } from "../../../../electron/service/errors.ts";
import { buildHttpApp, type HttpAppOptions } from "../../../../electron/service/http/app.ts";
import {
  DEFAULT_METRICS_ALLOW,
  metricsAllowList,
} from "../../../../electron/service/metrics/metricsAllowList.ts";
import { ServiceMetrics } from "../../../../electron/service/metrics/serviceMetrics.ts";
import { makeTempDir, REPO_ROOT, removeDir } from "../../../harness/keyServiceProcess.ts";
import { parseSamples, sampleValue } from "../../../harness/prometheusText.ts";

/**
 * GET /metrics of an app built in this process: who is answered (the allow list against the
 * client address, a trusted proxy's forwarded one included), that each request is counted once
 * under its route template (HEAD and 405s too), and that a storage failure is counted.
 */

const dirs: string[] = [];
after(() => Promise.all(dirs.map(removeDir)));

async function appWith(allow: readonly string[], options: HttpAppOptions = {}) {
  const dir = await makeTempDir("keydesk-metrics-route-");
  dirs.push(dir);
  const data = openDataDir({ dataDir: dir, dataKey: randomBytes(32) });
  const service = buildHttpApp(data, {
    logLevel: "silent",
    keyListWorker: null,
    metrics: { collector: new ServiceMetrics(), allow: metricsAllowList(allow) },
    ...options,
  });
  const { app } = service;
  const call = (method: string, url: string, remoteAddress = "127.0.0.1", headers = {}) =>
    app.inject({ method: method as HTTPMethods, url, remoteAddress, headers });
  const scrape = async () => {
    const res = await call("GET", "/metrics");
    assert.equal(res.statusCode, 200, res.body);
    return parseSamples(res.body);
  };
  return {
    service,
    call,
    scrape,
    async close() {
      await app.close();
      data.close();
    },
  };
}

const requests = (route: string, method: string, status: string) => ({ route, method, status });

test("loopback by default: IPv4, IPv6 and IPv4-mapped loopback are answered, other addresses are 403", async () => {
  const { call, close } = await appWith(DEFAULT_METRICS_ALLOW);
  try {
    for (const address of ["127.0.0.1", "127.5.6.7", "::1", "::ffff:127.0.0.1"])
      assert.equal((await call("GET", "/metrics", address)).statusCode, 200, address);
    for (const address of ["10.0.0.1", "2001:db8::1", "::ffff:10.0.0.1"]) {
      const res = await call("GET", "/metrics", address);
      assert.equal(res.statusCode, 403, address);
      assert.equal(res.json().requestError.serviceException.messageId, "FORBIDDEN");
      assert.equal(res.headers["cache-control"], "no-store");
    }
  } finally {
    await close();
  }
});

test("behind a trusted proxy the forwarded client address is the one checked, never the proxy's", async () => {
  const { call, close } = await appWith(["10.0.0.0/8"], { trustedProxies: ["127.0.0.1"] });
  try {
    assert.equal(
      (await call("GET", "/metrics", "127.0.0.1", { "x-forwarded-for": "10.1.2.3" })).statusCode,
      200,
    );
    assert.equal(
      (await call("GET", "/metrics", "127.0.0.1", { "x-forwarded-for": "192.168.0.9" })).statusCode,
      403,
    );
    assert.equal(
      (await call("GET", "/metrics", "127.0.0.1")).statusCode,
      403,
      "the proxy itself is not listed",
    );
  } finally {
    await close();
  }
});

test("a refusal names the client's address only when it is one: a forwarded header's other text is not echoed", async () => {
  const { call, close } = await appWith(["10.0.0.0/8"], { trustedProxies: ["127.0.0.1"] });
  try {
    const named = await call("GET", "/metrics", "127.0.0.1", { "x-forwarded-for": "192.168.0.9" });
    assert.match(named.json().requestError.serviceException.text, /192\.168\.0\.9 is not one of them/);
    for (const forwarded of ["<img src=x onerror=alert(1)>", "10.0.0.0/8", "not an address"]) {
      const res = await call("GET", "/metrics", "127.0.0.1", { "x-forwarded-for": forwarded });
      assert.equal(res.statusCode, 403, forwarded);
      const text: string = res.json().requestError.serviceException.text;
      assert.ok(!text.includes(forwarded), `${forwarded} echoed: ${text}`);
      assert.match(text, /the forwarded client address \(not an IP address\) is not one of them/);
    }
  } finally {
    await close();
  }
});

test("each request counts once, under its route template: HEAD, 405s and unknown paths included", async () => {
  const { call, scrape, close } = await appWith(["127.0.0.1"]);
  try {
    const before = await scrape();
    await call("HEAD", "/local/1/health/live");
    await call("GET", "/local/1/health/live");
    await call("PATCH", "/settings/1/accounts/_/api-keys");
    await call(
      "GET",
      "/settings/1/accounts/0123456789ABCDEF0123456789ABCDEF/api-keys/FEDCBA9876543210FEDCBA9876543210",
    );
    // Provider paths no route takes: refused before the 404, as the caller sent no credentials.
    await call("GET", "/nothing/here");
    await call("DELETE", "/nothing/at/all");
    // The router's own refusals: not valid percent-encoding, a segment longer than any id.
    await call("GET", "/local/1/pins%");
    await call("GET", `/settings/1/accounts/${"A".repeat(600)}/api-keys`);
    const now = await scrape();
    const moved = (labels: Record<string, string>) =>
      (sampleValue(now, "keydesk_http_requests_total", labels) ?? 0) -
      (sampleValue(before, "keydesk_http_requests_total", labels) ?? 0);
    assert.equal(moved(requests("/local/1/health/live", "HEAD", "200")), 1);
    assert.equal(moved(requests("/local/1/health/live", "GET", "200")), 1);
    assert.equal(moved(requests("/settings/1/accounts/:accountKey/api-keys", "PATCH", "405")), 1);
    assert.equal(moved(requests("/settings/1/accounts/:accountKey/api-keys/:key", "GET", "401")), 1);
    assert.equal(moved(requests("unmatched", "DELETE", "401")), 1);
    assert.equal(moved(requests("unmatched", "GET", "401")), 1);
    assert.equal(moved(requests("unmatched", "GET", "400")), 1);
    assert.equal(moved(requests("unmatched", "GET", "404")), 1);
    // One GET /metrics before (the first scrape), counted once it was answered.
    assert.equal(moved(requests("/metrics", "GET", "200")), 1);
    const routes = new Set(
      now.filter((s) => s.name === "keydesk_http_requests_total").map((s) => s.labels.route),
    );
    for (const route of routes)
      assert.ok(route === "unmatched" || !/[0-9A-F]{32}|nothing/.test(route ?? ""), route);
  } finally {
    await close();
  }
});

test("a request the database failed (answered 503) is a storage failure; other errors are not", async () => {
  const { service, call, scrape, close } = await appWith(["127.0.0.1"]);
  try {
    const unreachable = new Error("the disk is gone");
    const accounts = service.data.store.accounts as { byUsername(username: string): Promise<unknown> };
    const { failure } = service.data;
    Object.assign(service.data, {
      failure: (error: unknown) =>
        error === unreachable ? new ApiError("SERVICE_UNAVAILABLE", "the database is gone") : failure(error),
    });
    accounts.byUsername = async () => {
      throw unreachable;
    };
    const basic = { authorization: `Basic ${Buffer.from("someone:secret").toString("base64")}` };
    const failed = await call("GET", "/local/1/accounts", "127.0.0.1", basic);
    assert.equal(failed.statusCode, 503, failed.body);
    accounts.byUsername = async () => {
      throw new Error("a bug, not the database");
    };
    assert.equal((await call("GET", "/local/1/accounts", "127.0.0.1", basic)).statusCode, 500);
    assert.equal(sampleValue(await scrape(), "keydesk_storage_failures_total"), 1);
  } finally {
    await close();
  }
});

test("without metrics nothing is counted and /metrics is no route", async () => {
  const dir = await makeTempDir("keydesk-metrics-off-");
  dirs.push(dir);
  const data = openDataDir({ dataDir: dir, dataKey: randomBytes(32) });
  const { app, metrics } = buildHttpApp(data, { logLevel: "silent", keyListWorker: null });
  try {
    assert.equal(metrics, undefined);
    assert.equal((await app.inject({ url: "/metrics" })).statusCode, 404);
    assert.equal(app.hasRoute({ method: "GET", url: "/metrics" }), false);
  } finally {
    await app.close();
    data.close();
  }
});

test("the service's modules load no prom-client (about 0.1 s): only turning metrics on does", () => {
  const code = `
    import { createRequire } from "node:module";
    await import("./electron/service/http/app.ts");
    await import("./electron/sync/attachSync.ts");
    const cached = Object.keys(createRequire(import.meta.url).cache);
    process.stdout.write(String(cached.filter((path) => path.includes("prom-client")).length));
  `;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", code], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, "0");
});
