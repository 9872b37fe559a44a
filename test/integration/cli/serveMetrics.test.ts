import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startForeignRemote } from "../../harness/foreignRemote.ts";
import {
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  request,
  runCli,
  type ServeProcess,
  startServe,
  storeArgs,
} from "../../harness/keyServiceProcess.ts";
import { declaredMetrics, parseSamples, type Sample, sampleValue } from "../../harness/prometheusText.ts";
import { assertApiError } from "../service/serviceFixture.ts";

/**
 * `serve --metrics`: /metrics is off unless asked for, answers only the addresses allowed, and its
 * counts move with real requests (creates, App-authorized calls allowed and refused, cache hits,
 * PINs), with labels that never name a key, an account or a user.
 */

const KEYS = "/settings/1/accounts/_/api-keys";
const USERNAME = "metrics-owner";
const PASSWORD = "metrics-owner-password";
const OWNER = basic(USERNAME, PASSWORD);
const NUMBER = "41793026727";

/** The metrics every service serves (PostgreSQL's own are checked in serveMetricsPostgres.test.ts). */
const EXPECTED: [string, string][] = [
  ["keydesk_http_requests_total", "counter"],
  ["keydesk_http_request_duration_seconds", "histogram"],
  ["keydesk_app_authorizations_total", "counter"],
  ["keydesk_cache_lookups_total", "counter"],
  ["keydesk_storage_failures_total", "counter"],
  ["keydesk_tfa_pins_sent_total", "counter"],
  ["keydesk_sync_runs_total", "counter"],
  ["keydesk_sync_run_duration_seconds", "histogram"],
  ["process_cpu_seconds_total", "counter"],
  ["process_resident_memory_bytes", "gauge"],
  ["nodejs_eventloop_lag_p99_seconds", "gauge"],
  ["nodejs_heap_size_used_bytes", "gauge"],
];

let dir: string;
let accountKey: string;
const running: ServeProcess[] = [];

async function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const server = await startServe({ dataDir: dir, args, env });
  running.push(server);
  return server;
}

async function scrape(server: ServeProcess, localAddress = "127.0.0.1") {
  const res = await request(server.url, {
    path: "/metrics",
    localAddress,
    headers: { accept: "text/plain" },
  });
  assert.equal(res.status, 200, res.text);
  assert.match(String(res.headers["content-type"]), /^text\/plain; version=0\.0\.4; charset=utf-8$/);
  assert.equal(res.headers["cache-control"], "no-store");
  return { text: res.text, samples: parseSamples(res.text) };
}

async function ok<T>(server: ServeProcess, path: string, authorization: string, body?: unknown): Promise<T> {
  const res = await request(server.url, { path, authorization, ...(body !== undefined && { body }) });
  assert.equal(res.status, 200, `${path}: ${res.text}`);
  return res.json as T;
}

before(async () => {
  dir = await makeTempDir("keydesk-metrics-");
  accountKey = await addAccount(dir, USERNAME, PASSWORD);
});

after(async () => {
  await Promise.all(running.map((server) => server.stop("SIGKILL")));
  await removeDir(dir);
});

test("off by default: /metrics is an unknown path, and the document does not name it", async () => {
  const server = await serve([]);
  const res = await request(server.url, { path: "/metrics" });
  assertApiError(res, 404, "NOT_FOUND");
  const doc = await request(server.url, { path: "/openapi.json" });
  assert.equal((doc.json as { paths: Record<string, unknown> }).paths["/metrics"], undefined);
});

describe("serve --metrics --metrics-allow 127.0.0.1", () => {
  let server: ServeProcess;

  before(async () => {
    server = await serve(["--metrics", "--metrics-allow", "127.0.0.1"]);
  });

  test("every metric is declared, /metrics is documented, HEAD is served and other methods are 405", async () => {
    const { text } = await scrape(server);
    const declared = declaredMetrics(text);
    for (const [name, type] of EXPECTED) assert.equal(declared.get(name), type, name);
    const doc = await request(server.url, { path: "/openapi.json" });
    assert.ok((doc.json as { paths: Record<string, unknown> }).paths["/metrics"]);
    const head = await request(server.url, { method: "HEAD", path: "/metrics" });
    assert.equal(head.status, 200);
    const post = await request(server.url, { method: "POST", path: "/metrics", body: {} });
    assertApiError(post, 405, "METHOD_NOT_ALLOWED");
  });

  test("an address outside the allow list is refused in the error shape, and sees no metric", async () => {
    // 127.0.0.2 is loopback too, but the list names 127.0.0.1 only.
    const res = await request(server.url, { path: "/metrics", localAddress: "127.0.0.2" });
    const refused = assertApiError(res, 403, "FORBIDDEN");
    assert.match(refused.text, /--metrics-allow/);
    assert.doesNotMatch(res.text, /keydesk_|process_/);
  });

  test("counts move with real requests, by route template, outcome and rule", async () => {
    const before = (await scrape(server)).samples;

    const all = await ok<{ key: string; publicApiKey: string }>(server, KEYS, OWNER, {
      name: "metrics all key",
      permissions: ["ALL"],
    });
    const tfa = await ok<{ key: string; publicApiKey: string }>(server, KEYS, OWNER, {
      name: "metrics tfa key",
      permissions: ["TFA"],
    });
    const appAll = `App ${all.publicApiKey}`;
    const appTfa = `App ${tfa.publicApiKey}`;
    await ok(server, `${KEYS}/${all.key}`, OWNER);
    // Allowed twice: read from the store, then from the cache.
    await ok(server, "/2fa/2/applications", appAll);
    await ok(server, "/2fa/2/applications", appAll);
    // Refused: a TFA key on a route that needs ALL; a key nobody has.
    const tfaOnly = await request(server.url, { path: "/2fa/2/applications", authorization: appTfa });
    assertApiError(tfaOnly, 403, "FORBIDDEN");
    const unknown = await request(server.url, {
      path: "/2fa/2/applications",
      authorization: "App not-a-key",
    });
    assertApiError(unknown, 401, "UNAUTHORIZED");
    const unmatchedPath = `/no/such/route/${all.key}`;
    assertApiError(
      await request(server.url, { path: unmatchedPath, authorization: appAll }),
      404,
      "NOT_FOUND",
    );
    // A PIN sent with the TFA key, its status read twice (the second from the cache).
    const app = await ok<{ applicationId: string }>(server, "/2fa/2/applications", appAll, {
      name: "metrics",
    });
    const template = await ok<{ messageId: string }>(
      server,
      `/2fa/2/applications/${app.applicationId}/messages`,
      appAll,
      { messageText: "Your code is {{pin}}", pinType: "NUMERIC" },
    );
    const pin = await ok<{ pinId: string }>(server, "/2fa/2/pin", appTfa, {
      applicationId: app.applicationId,
      messageId: template.messageId,
      to: NUMBER,
    });
    await ok(server, `/2fa/2/pin/${pin.pinId}/status`, appTfa);
    await ok(server, `/2fa/2/pin/${pin.pinId}/status`, appTfa);

    const { text, samples: now } = await scrape(server);
    const moved = (name: string, labels: Record<string, string> = {}) =>
      (sampleValue(now, name, labels) ?? 0) - (sampleValue(before, name, labels) ?? 0);
    const requests = (route: string, method: string, status: string) =>
      moved("keydesk_http_requests_total", { route, method, status });

    assert.equal(requests("/settings/1/accounts/:accountKey/api-keys", "POST", "200"), 2);
    assert.equal(requests("/settings/1/accounts/:accountKey/api-keys/:key", "GET", "200"), 1);
    assert.equal(requests("/2fa/2/applications", "GET", "200"), 2);
    assert.equal(requests("/2fa/2/applications", "GET", "403"), 1);
    assert.equal(requests("/2fa/2/applications", "GET", "401"), 1);
    assert.equal(requests("unmatched", "GET", "404"), 1);
    assert.equal(
      moved("keydesk_http_request_duration_seconds_count", {
        route: "/settings/1/accounts/:accountKey/api-keys",
        method: "POST",
        status: "200",
      }),
      2,
    );

    const authorizations = (labels: Record<string, string>) =>
      moved("keydesk_app_authorizations_total", labels);
    // Two list calls, two application writes, the unknown path, a PIN send and two status reads.
    assert.equal(authorizations({ outcome: "allowed" }), 8);
    assert.equal(authorizations({ outcome: "refused", rule: "tfa-only" }), 1);
    assert.equal(authorizations({ outcome: "refused", rule: "unknown-key" }), 1);
    assert.equal(authorizations({ outcome: "refused", rule: "disabled" }), 0);

    const lookups = (cache: string, result: string) =>
      moved("keydesk_cache_lookups_total", { cache, result });
    assert.ok(lookups("app_keys", "hit") >= 1, "an App key found in memory");
    assert.ok(lookups("app_keys", "miss") >= 1, "an App key read from the store");
    assert.equal(lookups("pin_status", "miss"), 1);
    assert.equal(lookups("pin_status", "hit"), 1);
    assert.equal(moved("keydesk_tfa_pins_sent_total", { channel: "sms", kind: "send" }), 1);
    assert.equal(moved("keydesk_storage_failures_total"), 0);

    assertNothingNamed(text, now, {
      "key id": [all.key, tfa.key],
      publicApiKey: [all.publicApiKey, tfa.publicApiKey],
      accountKey: [accountKey],
      username: [USERNAME],
      password: [PASSWORD],
      "2FA ids": [app.applicationId, template.messageId, pin.pinId],
      "phone number": [NUMBER],
      "a raw URL": [unmatchedPath],
    });
  });

  test("sync runs by outcome and reason, with their durations", async () => {
    const remote = await startForeignRemote();
    try {
      const before = (await scrape(server)).samples;
      const link = await ok<{ id: number }>(server, "/local/1/sync/links", OWNER, {
        accountKey: "_",
        remote: { baseUrl: remote.url, username: remote.username, password: remote.password },
        intervalSeconds: 3600,
      });
      const run = `/local/1/sync/links/${link.id}/run`;
      await ok(server, run, OWNER, {});
      remote.fail({ method: "GET", status: 503, times: 10 });
      await ok(server, run, OWNER, {});
      const now = (await scrape(server)).samples;
      const moved = (name: string, labels: Record<string, string>) =>
        (sampleValue(now, name, labels) ?? 0) - (sampleValue(before, name, labels) ?? 0);
      assert.ok(moved("keydesk_sync_runs_total", { outcome: "success" }) >= 1, "a run that synced");
      assert.ok(
        moved("keydesk_sync_runs_total", { outcome: "failure", reason: "unavailable" }) >= 1,
        "a run the remote answered 503",
      );
      assert.ok(moved("keydesk_sync_run_duration_seconds_count", { outcome: "success" }) >= 1);
      assert.ok(moved("keydesk_sync_run_duration_seconds_count", { outcome: "failure" }) >= 1);
    } finally {
      await remote.close();
    }
  });
});

/**
 * None of these values is anywhere in the text, nor a part of a publicApiKey in any label (parts
 * are looked for in labels only: a short all-digit part may well occur inside a number), and the
 * labels are the known few.
 */
function assertNothingNamed(text: string, samples: Sample[], secrets: Record<string, string[]>): void {
  const labelValues = samples.flatMap((sample) =>
    Object.entries(sample.labels)
      .filter(([name]) => name !== "le")
      .map(([, value]) => value),
  );
  for (const [what, values] of Object.entries(secrets))
    for (const value of values) {
      assert.ok(!text.includes(value), `the metrics name a ${what}: ${value}`);
      if (what === "publicApiKey")
        for (const part of value.split("-"))
          for (const labelValue of labelValues)
            assert.ok(!labelValue.includes(part), `a part of a publicApiKey in a label: ${labelValue}`);
    }
  const labels = new Set(samples.flatMap((sample) => Object.keys(sample.labels)));
  for (const label of labels)
    assert.ok(
      ["route", "method", "status", "outcome", "rule", "cache", "result", "channel", "kind", "reason", "le"]
        .concat(["type", "space", "version", "major", "minor", "patch"])
        .includes(label),
      `an unexpected label: ${label}`,
    );
}

test("KEY_SERVICE_METRICS and KEY_SERVICE_METRICS_ALLOW turn it on and name who may read it", async () => {
  const server = await serve([], { KEY_SERVICE_METRICS: "1", KEY_SERVICE_METRICS_ALLOW: "127.0.0.2, ::1" });
  await scrape(server, "127.0.0.2");
  assertApiError(
    await request(server.url, { path: "/metrics", localAddress: "127.0.0.1" }),
    403,
    "FORBIDDEN",
  );
});

test("an invalid --metrics-allow or KEY_SERVICE_METRICS stops the start with a one-line usage error", async () => {
  const store = await storeArgs(dir);
  for (const [args, env, said] of [
    [
      ["--metrics", "--metrics-allow", "127.0.0.1,intranet"],
      {},
      /^key-service: --metrics-allow: "intranet" is not an IP address or CIDR range/,
    ],
    [["--metrics-allow", "10.0.0.0/33"], {}, /^key-service: --metrics-allow: "10\.0\.0\.0\/33" is not/],
    [
      ["--metrics"],
      { KEY_SERVICE_METRICS_ALLOW: "::1/200" },
      /^key-service: KEY_SERVICE_METRICS_ALLOW: "::1\/200" is not/,
    ],
    [[], { KEY_SERVICE_METRICS: "maybe" }, /^key-service: KEY_SERVICE_METRICS must be 1, true, on or yes/],
  ] as [string[], NodeJS.ProcessEnv, RegExp][]) {
    const result = await runCli(["serve", "--port", "0", ...store, ...args], env);
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    assert.equal(result.stdout, "", "nothing served");
    const [first, second] = result.stderr.split("\n");
    assert.match(first as string, said);
    assert.match(second as string, /^usage:/, "the usage follows the one line");
  }
});
