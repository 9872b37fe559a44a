import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import autocannon, { type AutocannonResult } from "autocannon";
import pg from "pg";
import {
  basic,
  makeTempDir,
  removeDir,
  request,
  runCli,
  type ServeProcess,
  startServe,
} from "../test/harness/keyServiceProcess.ts";
import { type PostgresCluster, postgresMissing, startPostgres } from "../test/harness/postgres.ts";
import { setUpPinStatus, startPlainServer } from "./appAuthorization.bench.ts";
import type { Benchmark } from "./lib/benchmark.ts";
import { type Metric, metric } from "./lib/metrics.ts";
import { cpuSeconds, treeCpuSeconds } from "./lib/processCpu.ts";
import { median } from "./lib/stats.ts";
import { BenchFailure } from "./lib/timedHttp.ts";

/**
 * Issue 15: the service on SQLite (one process) against PostgreSQL (one replica, then two on one
 * database with the load spread across both), in one run: creates/s and App-authorized PIN status
 * req/s, and the CPU each request costs the serve processes and, separately, PostgreSQL's own
 * processes. Then what the change feed's pg_notify adds to a write transaction.
 */

const KEYS_PATH = "/settings/1/accounts/_/api-keys";
const COUNT_PATH = "/local/1/accounts/_/api-keys/count";
const CREATE_BODY = JSON.stringify({ name: "bench created key", permissions: ["ALL"] });
const USERNAME = "bench";
const PASSWORD = "bench-password-0123456789";
const AUTHORIZATION = basic(USERNAME, PASSWORD);

/** As the `creates` and `app-auth` benchmarks load one server; split evenly over two replicas. */
const CREATE_CONNECTIONS = 16;
const AUTH_CONNECTIONS = 50;
/** Timed rounds per setup and kind; the setups' rounds alternate, the median is reported. */
const ROUNDS = 5;
const CREATE_SECONDS = 4;
const AUTH_SECONDS = 5;
const WARM_UP_SECONDS = 2;

/** A process loaded by the bench: a serve, or the bare node:http server. */
type Server = Pick<ServeProcess, "url" | "child" | "stderr">;

/**
 * One way of running the service: its serve processes (the load is spread over all of them); or
 * `plain`, the bare node:http server App-authorized requests are held against.
 */
interface Setup {
  name: "plain" | "sqlite" | "pg1" | "pg2";
  servers: Server[];
  /** PostgreSQL's postmaster, whose process tree is the database's CPU; none for SQLite. */
  postmasterPid?: number;
  /** Creates answered 2xx so far, warm-ups included (checked against the stored keys at the end). */
  created: number;
}

interface Sample {
  answered: number;
  rate: number;
  /** CPU seconds per answered request: the serve processes, PostgreSQL's processes. */
  serveCpu: number;
  dbCpu: number;
}

function requireAlive(setup: Setup): void {
  for (const server of setup.servers) {
    const { child } = server;
    if (child.exitCode !== null || child.signalCode !== null)
      throw new BenchFailure(
        `${setup.name}: serve exited (${child.exitCode ?? child.signalCode}); stderr:\n${server.stderr()}`,
      );
  }
}

function requireClean(what: string, result: AutocannonResult, server: Server): void {
  if (result.non2xx === 0 && result.errors === 0 && result.timeouts === 0) return;
  throw new BenchFailure(
    `${what}: ${result.non2xx} non-2xx answers (${JSON.stringify(result.statusCodeStats)}), ` +
      `${result.errors} errors, ${result.timeouts} timeouts; server stderr:\n${server.stderr()}`,
  );
}

type Load = { kind: "creates" } | { kind: "appAuth"; statusPath: string; authorization: string };

/** One bounded autocannon run per serve process of the setup, at once, with the connections split. */
async function round(setup: Setup, load: Load, seconds: number): Promise<Sample> {
  const total = load.kind === "creates" ? CREATE_CONNECTIONS : AUTH_CONNECTIONS;
  const connections = Math.max(1, Math.round(total / setup.servers.length));
  const pids = setup.servers.map((server) => server.child.pid ?? 0);
  const serveCpu = () => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const dbCpu = () => (setup.postmasterPid ? treeCpuSeconds(setup.postmasterPid) : 0);
  const serveBefore = serveCpu();
  const dbBefore = dbCpu();
  const results = await Promise.all(
    setup.servers.map((server) =>
      autocannon(
        load.kind === "creates"
          ? {
              url: `${server.url}${KEYS_PATH}`,
              method: "POST",
              headers: {
                authorization: AUTHORIZATION,
                "content-type": "application/json",
                accept: "application/json",
              },
              body: CREATE_BODY,
              connections,
              duration: seconds,
              timeout: 10,
            }
          : {
              url: `${server.url}${load.statusPath}`,
              headers: { authorization: load.authorization, accept: "application/json" },
              connections,
              duration: seconds,
              timeout: 10,
            },
      ),
    ),
  );
  const serveUsed = serveCpu() - serveBefore;
  const dbUsed = dbCpu() - dbBefore;
  results.forEach((result, index) => {
    requireClean(`${setup.name} ${load.kind}`, result, setup.servers[index] as Server);
  });
  requireAlive(setup);
  const answered = results.reduce((sum, result) => sum + result["2xx"], 0);
  if (load.kind === "creates") setup.created += answered;
  const duration = Math.max(...results.map((result) => result.duration));
  const per = Math.max(1, answered);
  return { answered, rate: answered / duration, serveCpu: serveUsed / per, dbCpu: dbUsed / per };
}

/** Alternates the setups' rounds (the order rotates), after a warm-up round of each. */
async function alternate(
  setups: Setup[],
  loadOf: (setup: Setup) => Load,
  seconds: number,
  log: (line: string) => void,
): Promise<Map<Setup, Sample[]>> {
  const samples = new Map<Setup, Sample[]>(setups.map((setup) => [setup, []]));
  for (const setup of setups) await round(setup, loadOf(setup), WARM_UP_SECONDS);
  for (let i = 0; i < ROUNDS; i++) {
    const order = setups.map((_, index) => setups[(index + i) % setups.length] as Setup);
    for (const setup of order) {
      const load = loadOf(setup);
      const sample = await round(setup, load, seconds);
      log(
        `postgres: ${setup.name} ${load.kind} ${sample.rate.toFixed(0)} req/s, ` +
          `serve ${(sample.serveCpu * 1e6).toFixed(0)} µs + db ${(sample.dbCpu * 1e6).toFixed(0)} µs CPU/request ` +
          `(load average ${loadavg()[0]?.toFixed(2)})`,
      );
      samples.get(setup)?.push(sample);
    }
  }
  return samples;
}

interface Summary {
  throughput: number;
  serveCpu: number;
  dbCpu: number;
}

function summarize(samples: Sample[]): Summary {
  return {
    throughput: median(samples.map((s) => s.rate)),
    serveCpu: median(samples.map((s) => s.serveCpu)),
    dbCpu: median(samples.map((s) => s.dbCpu)),
  };
}

/** The directory of Debian's PostgreSQL server programs, newest version first. */
function serverBinDir(): string {
  const root = "/usr/lib/postgresql";
  const version = readdirSync(root)
    .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a))[0];
  if (!version) throw new BenchFailure(`no pg_ctl under ${root}`);
  return join(root, version, "bin");
}

/**
 * The test harness's cluster runs with fsync, synchronous_commit and full_page_writes off (its
 * data dies with the test). SQLite here commits with synchronous = FULL, so the bench restarts the
 * cluster with PostgreSQL's defaults (every commit flushed) before anything is measured.
 */
function restartDurable(cluster: PostgresCluster): void {
  const data = join(cluster.dir, "data");
  const port = new URL(cluster.url()).port;
  const asUser = process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--"] : [];
  const [command, ...args] = [
    ...asUser,
    join(serverBinDir(), "pg_ctl"),
    "restart",
    "-D",
    data,
    "-m",
    "fast",
    "-w",
    "-t",
    "30",
    "-l",
    join(cluster.dir, "server.log"),
    "-o",
    `-c listen_addresses=127.0.0.1 -p ${port} -k ${cluster.dir}`,
  ];
  execFileSync(command as string, args, {
    cwd: cluster.dir,
    env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin", LANG: "C.UTF-8" },
    stdio: "pipe",
  });
}

function postmasterPid(cluster: PostgresCluster): number {
  const pid = Number(readFileSync(join(cluster.dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
  if (!pid) throw new BenchFailure("no postmaster.pid in the cluster's data dir");
  return pid;
}

async function settings(url: string, names: string[]): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ name: string; setting: string }>(
      "SELECT name, setting FROM pg_settings WHERE name = ANY($1)",
      [names],
    );
    return Object.fromEntries(result.rows.map((row) => [row.name, row.setting]));
  } finally {
    await client.end();
  }
}

async function addBenchAccount(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const added = await runCli(["account", "add", ...args, "--username", USERNAME], {
    ...env,
    KEY_SERVICE_PASSWORD: PASSWORD,
  });
  if (added.code !== 0) throw new BenchFailure(`account add failed (${added.code}): ${added.stderr}`);
}

async function keyCount(server: ServeProcess): Promise<number> {
  const response = await request(server.url, { path: COUNT_PATH, authorization: AUTHORIZATION });
  if (response.status !== 200) throw new BenchFailure(`${COUNT_PATH} answered ${response.status}`);
  return (response.json as { count: number }).count;
}

/** The set-up's two keys (setUpPinStatus) besides the created ones. */
const SET_UP_KEYS = 2;

/**
 * Every answered create must be a key: the account holds the set-up's keys and one per 2xx answer,
 * plus at most one per connection and round (requests cut off at a round's end).
 */
async function requireStored(setups: Setup[], server: ServeProcess): Promise<void> {
  const answered = setups.reduce((sum, setup) => sum + setup.created, 0) + SET_UP_KEYS;
  const stored = await keyCount(server);
  const slack = setups.length * (ROUNDS + 1) * CREATE_CONNECTIONS;
  if (stored < answered || stored > answered + slack) {
    const names = setups.map((setup) => setup.name).join(" + ");
    throw new BenchFailure(`${names}: ${answered} keys answered but the account holds ${stored}`);
  }
}

const NOTIFY_CHANNEL = "keydesk_bench_changes";
const NOTIFY_WRITERS = 8;
const NOTIFY_LISTENERS = 2;
const NOTIFY_SECONDS = 3;

/** The write transactions compared: how each ends before its COMMIT. */
const NOTIFY_VARIANTS = {
  /** The store's write path: the change feed's notification. */
  notify: "SELECT pg_notify($1, $2)",
  /** The same round trip and parameters, no notification. */
  select: "SELECT $1::text, $2::text",
  /** The INSERT alone. */
  none: undefined,
} as const;
type NotifyVariant = keyof typeof NOTIFY_VARIANTS;

interface VariantFigures {
  /** Transactions per second and PostgreSQL CPU seconds per transaction, medians of the rounds. */
  rate: number;
  cpu: number;
}

interface NotifyCost {
  figures: Record<NotifyVariant, VariantFigures>;
  /** Median over the rounds of how much more database CPU a notifying transaction costs than `select`, %. */
  cpuCost: number;
  /** The same from throughput (1 - notify/select). */
  rateCost: number;
}

/**
 * What the change feed's notification adds to a write: transactions of one INSERT of a row the
 * size of a key-change payload, ended by the `SELECT pg_notify(channel, payload)` the store sends
 * before COMMIT, by the same round trip without a notification, or by nothing, from
 * NOTIFY_WRITERS connections at once while NOTIFY_LISTENERS connections LISTEN (the replicas).
 * Each round runs the three (order rotating); a fresh database of the same cluster.
 */
async function notifyCost(
  cluster: PostgresCluster,
  postmaster: number,
  log: (line: string) => void,
): Promise<NotifyCost> {
  const url = await cluster.createDatabase();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const listeners: pg.Client[] = [];
  const pool = new pg.Pool({ connectionString: url, max: NOTIFY_WRITERS });
  let heard = 0;
  let sent = 0;
  try {
    await admin.query("CREATE TABLE bench_change (id bigserial PRIMARY KEY, payload text NOT NULL)");
    for (let i = 0; i < NOTIFY_LISTENERS; i++) {
      const listener = new pg.Client({ connectionString: url });
      await listener.connect();
      listener.on("notification", () => {
        heard++;
      });
      await listener.query(`LISTEN ${NOTIFY_CHANNEL}`);
      listeners.push(listener);
    }
    let counter = 0;
    const run = async (variant: NotifyVariant, seconds: number): Promise<VariantFigures> => {
      const statement = NOTIFY_VARIANTS[variant];
      const until = performance.now() + seconds * 1000;
      const cpuBefore = treeCpuSeconds(postmaster);
      const started = performance.now();
      let done = 0;
      await Promise.all(
        Array.from({ length: NOTIFY_WRITERS }, async () => {
          const client = await pool.connect();
          try {
            while (performance.now() < until) {
              const payload = `key:${(counter++).toString(16).padStart(64, "0")}`;
              await client.query("BEGIN");
              await client.query("INSERT INTO bench_change (payload) VALUES ($1)", [payload]);
              if (statement) await client.query(statement, [NOTIFY_CHANNEL, payload]);
              await client.query("COMMIT");
              if (variant === "notify") sent++;
              done++;
            }
          } finally {
            client.release();
          }
        }),
      );
      const elapsed = (performance.now() - started) / 1000;
      return { rate: done / elapsed, cpu: (treeCpuSeconds(postmaster) - cpuBefore) / Math.max(1, done) };
    };
    const variants = Object.keys(NOTIFY_VARIANTS) as NotifyVariant[];
    for (const variant of variants) await run(variant, WARM_UP_SECONDS / 2);
    const rounds: Record<NotifyVariant, VariantFigures>[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const figures = {} as Record<NotifyVariant, VariantFigures>;
      for (let j = 0; j < variants.length; j++) {
        const variant = variants[(i + j) % variants.length] as NotifyVariant;
        figures[variant] = await run(variant, NOTIFY_SECONDS);
      }
      log(
        `postgres: ${variants
          .map(
            (v) =>
              `${v} ${figures[v].rate.toFixed(0)} tx/s ${(figures[v].cpu * 1e6).toFixed(0)} µs db CPU/tx`,
          )
          .join(", ")} (load average ${loadavg()[0]?.toFixed(2)})`,
      );
      rounds.push(figures);
    }
    // Every notification of a committed transaction reaches every listener.
    const deadline = Date.now() + 5_000;
    while (heard < sent * NOTIFY_LISTENERS && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    if (heard !== sent * NOTIFY_LISTENERS)
      throw new BenchFailure(`notify: ${sent} sent to ${NOTIFY_LISTENERS} listeners, ${heard} heard`);
    const medianOf = (variant: NotifyVariant): VariantFigures => ({
      rate: median(rounds.map((r) => r[variant].rate)),
      cpu: median(rounds.map((r) => r[variant].cpu)),
    });
    return {
      figures: { notify: medianOf("notify"), select: medianOf("select"), none: medianOf("none") },
      cpuCost: median(rounds.map((r) => (r.notify.cpu / r.select.cpu - 1) * 100)),
      rateCost: median(rounds.map((r) => (1 - r.notify.rate / r.select.rate) * 100)),
    };
  } finally {
    await pool.end();
    for (const listener of listeners) await listener.end();
    await admin.end();
  }
}

const µs = (seconds: number) => seconds * 1e6;

/** Round by round (the same index is the same round), each rate over the plain server's; the median. */
function ratioToPlain(samples: Sample[], plain: Sample[]): number {
  return median(samples.map((sample, round) => sample.rate / (plain[round] as Sample).rate));
}

/** Issue 31: App-authorized calls at least this share of the bare node:http server's rate, same rounds. */
const RATIO_TO_PLAIN_TARGET = 0.7;
/** Issue 31: creates/s of one replica, durable commits, 16 connections. */
const CREATES_TARGET = 2_000;

function setupMetrics(
  setup: Setup["name"],
  creates: Summary,
  auth: Summary,
  sqliteAuth: Summary,
  authRatioToPlain: number,
): Metric[] {
  const metrics = [
    setup === "pg1"
      ? metric("postgres", `${setup}.creates.throughput`, creates.throughput, "req/s", {
          atLeast: CREATES_TARGET,
        })
      : metric("postgres", `${setup}.creates.throughput`, creates.throughput, "req/s"),
    metric("postgres", `${setup}.creates.serveCpuPerRequest`, µs(creates.serveCpu), "µs"),
  ];
  if (setup !== "sqlite")
    metrics.push(metric("postgres", `${setup}.creates.dbCpuPerRequest`, µs(creates.dbCpu), "µs"));
  metrics.push(
    metric("postgres", `${setup}.appAuth.throughput`, auth.throughput, "req/s"),
    setup === "pg2"
      ? metric("postgres", `${setup}.appAuth.ratioToPlain`, authRatioToPlain, "x")
      : metric("postgres", `${setup}.appAuth.ratioToPlain`, authRatioToPlain, "x", {
          atLeast: RATIO_TO_PLAIN_TARGET,
        }),
    metric("postgres", `${setup}.appAuth.serveCpuPerRequest`, µs(auth.serveCpu), "µs"),
  );
  if (setup !== "sqlite") {
    const ratio = (auth.serveCpu + auth.dbCpu) / sqliteAuth.serveCpu;
    metrics.push(
      metric("postgres", `${setup}.appAuth.dbCpuPerRequest`, µs(auth.dbCpu), "µs"),
      // Issue 15: one replica within 2x of SQLite's CPU per App-authorized request (service + database).
      setup === "pg1"
        ? metric("postgres", `${setup}.appAuth.cpuRatioToSqlite`, ratio, "x", { below: 2 })
        : metric("postgres", `${setup}.appAuth.cpuRatioToSqlite`, ratio, "x"),
    );
  }
  return metrics;
}

export const postgresBenchmark: Benchmark = {
  name: "postgres",
  description: `SQLite vs 1 and 2 PostgreSQL replicas: creates and App-authorized PIN status, CPU per request (about 4 min)`,
  async run(context) {
    // Like the tests: skipped with a clear line where PostgreSQL is missing (`npm run bench` runs all).
    if (postgresMissing) {
      context.log(`postgres: SKIPPED, ${postgresMissing}`);
      return [];
    }
    const loadAtStart = loadavg()[0] ?? 0;
    const dir = await makeTempDir("keydesk-bench-pg-");
    const running: ServeProcess[] = [];
    let cluster: PostgresCluster | undefined;
    let stopPlain = () => {};
    try {
      const sqliteDir = join(dir, "sqlite");
      await addBenchAccount(["--data-dir", sqliteDir], {});
      const sqlite = await startServe({ dataDir: sqliteDir, storeArgs: ["--data-dir", sqliteDir] });
      running.push(sqlite);

      cluster = await startPostgres();
      restartDurable(cluster);
      const durable = await settings(cluster.url(), ["fsync", "synchronous_commit", "full_page_writes"]);
      context.log(`postgres: cluster restarted with ${JSON.stringify(durable)}`);
      const postmaster = postmasterPid(cluster);
      const url = await cluster.createDatabase();
      const env = { KEY_SERVICE_DATABASE_URL: url, KEY_SERVICE_DATA_KEY: randomBytes(32).toString("base64") };
      await addBenchAccount([], env);
      const replicaA = await startServe({ dataDir: join(dir, "a"), storeArgs: [], env });
      running.push(replicaA);

      const sqliteStatus = await setUpPinStatus({ url: sqlite.url, authorization: AUTHORIZATION });
      const pgStatus = await setUpPinStatus({ url: replicaA.url, authorization: AUTHORIZATION });
      const statusSample = await request(sqlite.url, {
        path: sqliteStatus.statusPath,
        authorization: `App ${sqliteStatus.tfaKey}`,
      });
      if (statusSample.status !== 200) throw new BenchFailure(`PIN status answered ${statusSample.status}`);
      const plainServer = await startPlainServer(JSON.stringify(statusSample.json));
      stopPlain = plainServer.stop;
      // The plain server's rounds beside pg1's and sqlite's, and again beside pg2's.
      const plain: Setup = { name: "plain", servers: [plainServer], created: 0 };
      const plainBesidePg2: Setup = { ...plain };
      const sqliteSetup: Setup = { name: "sqlite", servers: [sqlite], created: 0 };
      const pg1: Setup = { name: "pg1", servers: [replicaA], postmasterPid: postmaster, created: 0 };
      const authLoad = (setup: Setup): Load => {
        const status = setup === pg1 || setup.name === "pg2" ? pgStatus : sqliteStatus;
        return { kind: "appAuth", statusPath: status.statusPath, authorization: `App ${status.tfaKey}` };
      };
      const createLoad = (): Load => ({ kind: "creates" });

      // Phase 1: SQLite and one replica alone (no second replica listening), rounds alternating.
      context.log(
        `postgres: App-authorized PIN status, plain node:http vs sqlite vs pg1, ${ROUNDS} x ${AUTH_SECONDS} s ...`,
      );
      const auth = await alternate([plain, sqliteSetup, pg1], authLoad, AUTH_SECONDS, context.log);
      context.log(`postgres: creates, sqlite vs pg1, ${ROUNDS} x ${CREATE_SECONDS} s ...`);
      const creates = await alternate([sqliteSetup, pg1], createLoad, CREATE_SECONDS, context.log);

      // Phase 2: a second replica on the same database, the load split evenly across both.
      const replicaB = await startServe({ dataDir: join(dir, "b"), storeArgs: [], env });
      running.push(replicaB);
      const pg2: Setup = {
        name: "pg2",
        servers: [replicaA, replicaB],
        postmasterPid: postmaster,
        created: 0,
      };
      context.log(`postgres: pg2, the load split over 2 replicas ...`);
      for (const [setup, samples] of await alternate(
        [plainBesidePg2, pg2],
        authLoad,
        AUTH_SECONDS,
        context.log,
      ))
        auth.set(setup, samples);
      stopPlain();
      for (const [setup, samples] of await alternate([pg2], createLoad, CREATE_SECONDS, context.log))
        creates.set(setup, samples);

      await requireStored([sqliteSetup], sqlite);
      await requireStored([pg1, pg2], replicaB);
      const of = (setup: Setup) => ({
        creates: summarize(creates.get(setup) ?? []),
        auth: summarize(auth.get(setup) ?? []),
      });
      const ratio = (setup: Setup, besides: Setup) =>
        ratioToPlain(auth.get(setup) ?? [], auth.get(besides) ?? []);
      const sqliteSummary = of(sqliteSetup);
      const pg1Summary = of(pg1);
      const pg2Summary = of(pg2);

      context.log("postgres: pg_notify cost ...");
      const notify = await notifyCost(cluster, postmaster, context.log);
      const loadAtEnd = loadavg()[0] ?? 0;

      return [
        metric("postgres", "plain.appAuth.throughput", summarize(auth.get(plain) ?? []).throughput, "req/s"),
        ...setupMetrics(
          "sqlite",
          sqliteSummary.creates,
          sqliteSummary.auth,
          sqliteSummary.auth,
          ratio(sqliteSetup, plain),
        ),
        ...setupMetrics("pg1", pg1Summary.creates, pg1Summary.auth, sqliteSummary.auth, ratio(pg1, plain)),
        ...setupMetrics(
          "pg2",
          pg2Summary.creates,
          pg2Summary.auth,
          sqliteSummary.auth,
          ratio(pg2, plainBesidePg2),
        ),
        // Issue 31: two replicas take at least as many creates as one.
        metric(
          "postgres",
          "pg2.creates.toPg1",
          pg2Summary.creates.throughput / pg1Summary.creates.throughput,
          "x",
          {
            atLeast: 1,
          },
        ),
        ...(Object.keys(notify.figures) as NotifyVariant[]).flatMap((variant) => [
          metric("postgres", `notify.${variant}.throughput`, notify.figures[variant].rate, "tx/s"),
          metric("postgres", `notify.${variant}.dbCpuPerTx`, µs(notify.figures[variant].cpu), "µs"),
        ]),
        metric("postgres", "notify.dbCpuCost", notify.cpuCost, "%"),
        metric("postgres", "notify.throughputCost", notify.rateCost, "%"),
        metric(
          "postgres",
          "durableCommits",
          durable.fsync === "on" && durable.synchronous_commit === "on" ? 1 : 0,
          "bool",
        ),
        metric("postgres", "loadAverage.start", loadAtStart, "load"),
        metric("postgres", "loadAverage.end", loadAtEnd, "load"),
      ];
    } finally {
      stopPlain();
      for (const server of running) await server.stop("SIGTERM");
      cluster?.stop();
      await removeDir(dir);
    }
  },
};
