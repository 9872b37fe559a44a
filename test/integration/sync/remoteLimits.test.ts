import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, test } from "node:test";
import type { SyncLinkDto } from "../../../shared/sync.ts";
import { type HostileRemote, startHostileRemote } from "../../harness/hostileRemote.ts";
import {
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  request,
  runCli,
  type ServeProcess,
  startServe,
} from "../../harness/keyServiceProcess.ts";

/**
 * Issue 11, finding 2: a remote must not be able to take the service's memory or hold its runs.
 * Real `serve` processes against a hostile remote on loopback. The limits are given through the
 * KEY_SERVICE_* variables (the flags are tested for validation below): a service that does not
 * know them still starts, and these tests then fail on what it does, not on a usage error.
 */

const PASSWORD = "correct horse battery";
const auth = basic("owner", PASSWORD);
const LIMITS = { KEY_SERVICE_SYNC_MAX_ANSWER_MB: "1", KEY_SERVICE_SYNC_REQUEST_TIMEOUT: "2" };

let dataDir: string;
let service: ServeProcess;
const remotes: HostileRemote[] = [];

before(async () => {
  dataDir = await makeTempDir("keydesk-sync-limits-");
  await addAccount(dataDir, "owner", PASSWORD);
  service = await startServe({ dataDir, env: LIMITS });
});
after(async () => {
  await service.stop();
  await Promise.all(remotes.map((remote) => remote.close()));
  await removeDir(dataDir);
});

async function call<T>(method: string, path: string, body?: unknown) {
  const res = await request(service.url, {
    method,
    path,
    authorization: auth,
    ...(body !== undefined && { body }),
  });
  return { status: res.status, json: res.json as T, text: res.text };
}

/** Links the own account to `baseUrl` (replacing the previous link) and runs it once. */
async function linkAndRun(baseUrl: string): Promise<{ link: SyncLinkDto; ms: number }> {
  const { json } = await call<{ links: SyncLinkDto[] }>("GET", "/local/1/sync/links");
  for (const old of json.links) await call("DELETE", `/local/1/sync/links/${old.id}`);
  const created = await call<SyncLinkDto>("POST", "/local/1/sync/links", {
    accountKey: "_",
    remote: { baseUrl, username: "someone", password: "whatever" },
    intervalSeconds: 3600,
    check: false, // the run is what meets the hostile remote
  });
  assert.equal(created.status, 200, created.text);
  const started = Date.now();
  const run = await call<SyncLinkDto>("POST", `/local/1/sync/links/${created.json.id}/run`);
  assert.equal(run.status, 200, run.text);
  return { link: run.json, ms: Date.now() - started };
}

async function memoryKb(field: "VmRSS" | "VmHWM"): Promise<number> {
  const status = await readFile(`/proc/${service.child.pid}/status`, "utf8");
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
}

test("a remote streaming a 300 MB key list is cut off at the limit; the service's memory stays flat", async (t) => {
  const remote = await startHostileRemote("huge");
  remotes.push(remote);
  const peakBefore = await memoryKb("VmHWM");
  const { link } = await linkAndRun(remote.url);
  const peakGrowthMb = ((await memoryKb("VmHWM")) - peakBefore) / 1024;
  t.diagnostic(`peak memory +${peakGrowthMb.toFixed(1)} MB; the remote sent ${remote.bytesSent} bytes`);
  assert.ok(peakGrowthMb < 100, `the service's peak memory grew by ${peakGrowthMb.toFixed(0)} MB`);
  // It stopped reading: what the remote could push is the limit plus socket buffers, not 300 MB.
  assert.ok(remote.bytesSent < 32 * 1024 * 1024, `the remote sent ${remote.bytesSent} bytes`);
  assert.equal(link.state, "backing-off");
  assert.match(link.lastError ?? "", /the remote's answer is larger than 1 MB/);
});

test("a Content-Length above the limit is refused before the body is read", async () => {
  const remote = await startHostileRemote("declared");
  remotes.push(remote);
  const { link, ms } = await linkAndRun(remote.url);
  assert.match(link.lastError ?? "", /the remote's answer is larger than 1 MB/);
  assert.ok(ms < 1_500, `refused after ${ms} ms, not at once`);
});

for (const mode of ["hang", "trickle"] as const) {
  test(`a remote that ${mode === "hang" ? "never answers" : "never finishes its body"} times out after the request limit`, async () => {
    const remote = await startHostileRemote(mode);
    remotes.push(remote);
    const { link, ms } = await linkAndRun(remote.url);
    assert.equal(link.state, "backing-off");
    assert.match(link.lastError ?? "", /timed out \(did not answer within 2 s\)/);
    assert.ok(ms >= 1_900 && ms < 6_000, `the run ended after ${ms} ms`);
  });
}

// A service that ignored the variable would keep running: the timeout ends the test then.
test("the limits given on the command line are validated", { timeout: 60_000 }, async () => {
  for (const [flag, value] of [
    ["--sync-max-answer-mb", "0"],
    ["--sync-max-answer-mb", "1.5"],
    ["--sync-request-timeout", "soon"],
    ["--sync-remote-allow", "ftp://keys.example.com"],
  ] as const) {
    const result = await runCli(["serve", "--port", "0", "--data-dir", dataDir, flag, value]);
    assert.notEqual(result.code, 0, `${flag} ${value} was accepted`);
    assert.match(result.stderr, new RegExp(flag));
  }
  const fromEnv = await runCli(["serve", "--port", "0", "--data-dir", dataDir], {
    KEY_SERVICE_SYNC_MAX_ANSWER_MB: "lots",
  });
  assert.notEqual(fromEnv.code, 0);
  assert.match(fromEnv.stderr, /KEY_SERVICE_SYNC_MAX_ANSWER_MB/);
});
