import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import autocannon from "autocannon";
import { basic, makeTempDir, REPO_ROOT, removeDir } from "../test/harness/keyServiceProcess.ts";
import { type ReadyProcess, spawnUntilReady } from "../test/harness/readyProcess.ts";
import { onlyStatus, setUpPinStatus } from "./appAuthorization.bench.ts";
import type { Benchmark } from "./lib/benchmark.ts";
import { type Metric, metric } from "./lib/metrics.ts";
import { cpuSeconds } from "./lib/processCpu.ts";
import { median } from "./lib/stats.ts";
import { BenchFailure } from "./lib/timedHttp.ts";

/**
 * The 2FA hot path on SQLite: PIN status with an App TFA key, req/s and the serve process's CPU per
 * answered request. With BENCH_BEFORE_ROOT=<a checkout of another commit> the same load runs
 * against that checkout's `serve` too, in alternating rounds, to compare two versions of the code
 * on the same machine at the same time (the CPU per request does not depend on who else wanted the
 * cores; the throughput does).
 */

const USERNAME = "bench";
const PASSWORD = "bench-password-0123456789";
const CONNECTIONS = 50;
const ROUNDS = 6;
const SECONDS = 5;
const WARM_UP_SECONDS = 2;
const LISTENING = /^key-service listening on (http:\/\/127\.0\.0\.1:\d+)$/;

interface Side {
  label: string;
  process: ReadyProcess;
  url: string;
  statusPath: string;
  authorization: string;
}

/** This environment without KEY_SERVICE_* from the caller, plus `extra`. */
function env(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const own = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("KEY_SERVICE_")),
  );
  return { ...own, ...extra };
}

function addAccount(root: string, dataDir: string): Promise<void> {
  const cli = join(root, "electron/cli/key-service.ts");
  const args = [cli, "account", "add", "--data-dir", dataDir, "--username", USERNAME];
  return new Promise((resolveAdded, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: env({ KEY_SERVICE_PASSWORD: PASSWORD }),
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolveAdded() : reject(new BenchFailure(`account add in ${root}: ${code} ${stderr}`)),
    );
  });
}

/** `serve` of the checkout at `root` on a fresh data dir, with a PIN and a TFA key to ask its status. */
async function startSide(label: string, root: string, dataDir: string): Promise<Side> {
  await addAccount(root, dataDir);
  const started = await spawnUntilReady({
    name: `serve (${label})`,
    args: [join(root, "electron/cli/key-service.ts"), "serve", "--port", "0", "--data-dir", dataDir],
    cwd: root,
    env: env({ KEY_SERVICE_LOG_LEVEL: "warn" }),
    ready: LISTENING,
    timeoutMs: 30_000,
  });
  const url = started.match[1] as string;
  try {
    const status = await setUpPinStatus({ url, authorization: basic(USERNAME, PASSWORD) });
    return {
      label,
      process: started,
      url,
      statusPath: status.statusPath,
      authorization: `App ${status.tfaKey}`,
    };
  } catch (error) {
    await started.stop("SIGKILL");
    throw error;
  }
}

async function round(side: Side, seconds: number) {
  const pid = side.process.child.pid ?? 0;
  const before = cpuSeconds(pid);
  const result = await autocannon({
    url: `${side.url}${side.statusPath}`,
    headers: { authorization: side.authorization, accept: "application/json" },
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 10,
  });
  const cpu = cpuSeconds(pid) - before;
  onlyStatus(`PIN status (${side.label})`, result, "200");
  const answered = result["2xx"];
  return { rate: answered / result.duration, cpu: cpu / Math.max(1, answered) };
}

export const pinStatusBenchmark: Benchmark = {
  name: "pin-status",
  description: `PIN status (App TFA key) on SQLite: req/s and serve CPU per request (${CONNECTIONS} connections; BENCH_BEFORE_ROOT=<checkout> compares)`,
  async run(context) {
    const beforeRoot = process.env.BENCH_BEFORE_ROOT;
    const dir = await makeTempDir("keydesk-bench-pins-");
    const sides: Side[] = [];
    const loadAtStart = loadavg()[0] ?? 0;
    try {
      sides.push(await startSide("today", REPO_ROOT, join(dir, "today")));
      if (beforeRoot) sides.push(await startSide("before", resolve(beforeRoot), join(dir, "before")));
      for (const side of sides) await round(side, WARM_UP_SECONDS);
      const samples = new Map<Side, { rate: number; cpu: number }[]>(sides.map((side) => [side, []]));
      context.log(
        `pin-status: ${ROUNDS} rounds of ${SECONDS} s${beforeRoot ? `, alternating with ${beforeRoot}` : ""} ...`,
      );
      for (let i = 0; i < ROUNDS; i++) {
        const order = i % 2 === 0 ? sides : [...sides].reverse();
        for (const side of order) {
          const sample = await round(side, SECONDS);
          context.log(
            `pin-status: ${side.label} ${sample.rate.toFixed(0)} req/s, ${(sample.cpu * 1e6).toFixed(1)} µs CPU/request ` +
              `(load average ${loadavg()[0]?.toFixed(2)})`,
          );
          samples.get(side)?.push(sample);
        }
      }
      const of = (side: Side) => samples.get(side) ?? [];
      const metrics: Metric[] = [];
      for (const side of sides) {
        const prefix = side.label === "today" ? "" : `${side.label}.`;
        metrics.push(
          metric("pin-status", `${prefix}throughput`, median(of(side).map((s) => s.rate)), "req/s"),
          metric("pin-status", `${prefix}serveCpuPerRequest`, median(of(side).map((s) => s.cpu)) * 1e6, "µs"),
        );
      }
      const [today, before] = sides;
      if (today && before) {
        const pairs = of(today).map(
          (sample, i) => (sample.cpu / (of(before)[i]?.cpu ?? Number.NaN) - 1) * 100,
        );
        metrics.push(metric("pin-status", "cpuPerRequestChange", median(pairs), "%"));
      }
      metrics.push(metric("pin-status", "loadAverage", loadAtStart, "load"));
      return metrics;
    } finally {
      for (const side of sides) await side.process.stop("SIGTERM");
      await removeDir(dir);
    }
  },
};
