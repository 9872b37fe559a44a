import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import pg from "pg";
import { withheld } from "./withheld.ts";

/**
 * A private PostgreSQL cluster for the tests: Debian's server binaries, initdb into a fresh temp dir,
 * listening on 127.0.0.1 only (plus a socket inside that dir) on a free port, with a generated password.
 * initdb + start take a second or two: a test run shares one (testPostgres); a fresh database per test or file.
 * Stopped and removed by `stop()`, and by the process's exit if a test file dies before that.
 */

/** The unprivileged user a root process runs the server as (initdb refuses root); Debian's package makes it. */
const SERVER_USER = "postgres";
const SUPERUSER = "keydesk";

interface Binaries {
  bin: string;
  /** The command prefix that runs the server's programs as an unprivileged user, empty when we are one. */
  asUser: string[];
  uid?: number;
  gid?: number;
}

function findBinDir(): string | undefined {
  const hasServer = (dir: string) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"));
  // pg_config (libpq-dev) may name the client library's version, not the server's: trust it only with initdb beside.
  try {
    const dir = execFileSync("pg_config", ["--bindir"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    if (hasServer(dir.trim())) return dir.trim();
  } catch {
    // No pg_config: look where Debian installs the server.
  }
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  return versions.map((version) => join(root, version, "bin")).find(hasServer);
}

function findRunuser(): string | undefined {
  return ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].find((path) => existsSync(path));
}

function locate(): Binaries | string {
  const without = withheld("postgresql");
  if (without) return without;
  const bin = findBinDir();
  if (!bin)
    return "no PostgreSQL server (initdb, pg_ctl) under /usr/lib/postgresql/*/bin (apt-get install postgresql)";
  if (process.getuid?.() !== 0) return { bin, asUser: [] };
  const runuser = findRunuser();
  if (!runuser) return "running as root and no runuser to start PostgreSQL as an unprivileged user";
  let ids: { uid: number; gid: number };
  try {
    ids = {
      uid: Number(execFileSync("id", ["-u", SERVER_USER], { encoding: "utf8" })),
      gid: Number(execFileSync("id", ["-g", SERVER_USER], { encoding: "utf8" })),
    };
  } catch {
    return `running as root and no "${SERVER_USER}" user to run PostgreSQL as (Debian's postgresql package creates it)`;
  }
  return { bin, asUser: [runuser, "-u", SERVER_USER, "--"], ...ids };
}

const located = locate();

/** Why the PostgreSQL tests cannot run here, or undefined when they can. */
export const postgresMissing = typeof located === "string" ? located : undefined;

/** Skips the test where PostgreSQL is missing, except in CI, where that is a failure. */
export function skipWithoutPostgres(t: { skip(message: string): void }): boolean {
  if (!postgresMissing) return false;
  if (process.env.CI === "true") assert.fail(postgresMissing);
  t.skip(postgresMissing);
  return true;
}

export interface PostgresCluster {
  /** The temp dir holding the cluster's data, socket and log. */
  dir: string;
  /** A connection string for `database` on this cluster, as the superuser. */
  url(database?: string): string;
  /** Creates an empty database with a fresh name and answers its connection string. */
  createDatabase(): Promise<string>;
  /** Stops the server and removes its directory; safe to call twice. */
  stop(): void;
}

/** A cluster of the test's own (startPostgres), which the test may take down and bring back. */
export interface PrivateCluster extends PostgresCluster {
  /** Stops the server at once, as a crash would (`pg_ctl stop -m immediate`): every connection drops. */
  halt(): void;
  /** Starts the halted server again, on the same port, and answers once it accepts connections. */
  resume(): void;
  /** `pg_ctl restart -m immediate`: every connection drops, the server is back when this answers. */
  restart(): void;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a private cluster (about a second). Throws where PostgreSQL is missing: check postgresMissing first.
 * `durable`: commits are acknowledged once in the server's log (PostgreSQL's default), so they survive a
 * server crash; otherwise, for speed, the last few may be lost to one (never to a clean stop).
 */
export async function startPostgres(options: { durable?: boolean } = {}): Promise<PrivateCluster> {
  if (typeof located === "string") throw new Error(located);
  const { bin, asUser, uid, gid } = located;
  const dir = mkdtempSync(join(tmpdir(), "keydesk-pg-"));
  const data = join(dir, "data");
  const password = randomBytes(18).toString("base64url");
  const pwfile = join(dir, "pwfile");
  writeFileSync(pwfile, password, { mode: 0o600 });
  if (uid !== undefined && gid !== undefined) {
    chownSync(dir, uid, gid);
    chownSync(pwfile, uid, gid);
  }
  chmodSync(dir, 0o700);
  /** The command line of one of the server's programs, run as the server's user. */
  const commandOf = (program: string, args: string[]) => {
    const [command, ...rest] = [...asUser, join(bin, program), ...args];
    return { command: command as string, args: rest };
  };
  const run = (program: string, args: string[]) => {
    const line = commandOf(program, args);
    const result = spawnSync(line.command, line.args, {
      encoding: "utf8",
      // The server's programs start in `dir`: a root test process's cwd may be unreadable to their user.
      cwd: dir,
      env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" },
    });
    if (result.status !== 0) {
      throw new Error(`${program} failed (${result.status}): ${result.stderr || result.stdout}`.trim());
    }
  };
  const serverLog = () => {
    try {
      return readFileSync(join(dir, "server.log"), "utf8").slice(-2000);
    } catch {
      return "";
    }
  };
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    process.off("exit", stop);
    // immediate: the data dir is removed next, so nothing needs a clean shutdown.
    if (existsSync(join(data, "postmaster.pid"))) {
      const line = commandOf("pg_ctl", ["stop", "-D", data, "-m", "immediate", "-w"]);
      spawnSync(line.command, line.args, { cwd: dir, stdio: "ignore" });
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", stop);
  try {
    run("initdb", [
      "-D",
      data,
      "-U",
      SUPERUSER,
      `--pwfile=${pwfile}`,
      "--auth=scram-sha-256",
      "--encoding=UTF8",
      "--locale=C",
      "--no-sync",
      "--no-instructions",
    ]);
    rmSync(pwfile);
    let port = 0;
    let serverOptions = "";
    const start = () =>
      run("pg_ctl", [
        "start",
        "-D",
        data,
        "-w",
        "-t",
        "30",
        "-l",
        join(dir, "server.log"),
        "-o",
        serverOptions,
      ]);
    // The free port may be taken between the probe and the server's bind: try another once.
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      serverOptions = [
        "-c listen_addresses=127.0.0.1",
        `-p ${port}`,
        `-k ${dir}`,
        // fsync: the cluster dies with the test file, and a server crash (not a machine crash) loses nothing to it.
        "-c fsync=off",
        // An acknowledged commit survives a server crash only with this on (a test of that asks for it).
        `-c synchronous_commit=${options.durable ? "on" : "off"}`,
        "-c full_page_writes=off",
        // One cluster may serve a whole test run (testPostgres): every file's pools and services at once.
        "-c max_connections=400",
      ].join(" ");
      try {
        start();
        break;
      } catch (error) {
        if (attempt >= 2) throw new Error(`${(error as Error).message}\n${serverLog()}`);
      }
    }
    const url = (database = "postgres") =>
      `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
    let databases = 0;
    return {
      dir,
      url,
      stop,
      halt: () => run("pg_ctl", ["stop", "-D", data, "-m", "immediate", "-w"]),
      resume: start,
      restart: () => {
        run("pg_ctl", ["stop", "-D", data, "-m", "immediate", "-w"]);
        start();
      },
      async createDatabase() {
        const name = `test_${process.pid}_${++databases}`;
        await createDatabaseOn(url(), name);
        return url(name);
      },
    };
  } catch (error) {
    stop();
    throw error;
  }
}

/**
 * The variable through which the test run's cluster (started once by test/harness/testRunSetup.ts,
 * node --test's global setup) reaches every test file's process: its superuser's connection string.
 */
export const SHARED_CLUSTER_VARIABLE = "KEYDESK_TEST_POSTGRES_URL";

/**
 * A database server for a test file: the run's shared cluster when there is one (a fresh database per
 * createDatabase, so files never see each other's rows), else a cluster of the file's own (a file run
 * alone). Starting a cluster costs a second or two and a few hundred processes' worth of files start
 * one each otherwise. A test that stops or reconfigures its server needs startPostgres() instead.
 * On the shared cluster, stop() drops the databases this process made (also at exit).
 */
export function testPostgres(): Promise<PostgresCluster> {
  const shared = process.env[SHARED_CLUSTER_VARIABLE];
  return shared ? Promise.resolve(sharedCluster(shared)) : startPostgres();
}

function sharedCluster(serverUrl: string): PostgresCluster {
  const base = new URL(serverUrl);
  const url = (database = "postgres") => {
    const at = new URL(base);
    at.pathname = `/${database}`;
    return at.toString();
  };
  const made: string[] = [];
  const dropMade = () => {
    process.off("exit", dropMade);
    if (made.length === 0 || typeof located === "string") return;
    // Sync (psql), so that it also runs from the exit event; FORCE: a service of the test may still hold a connection.
    spawnSync(
      join(located.bin, "psql"),
      [
        "-X",
        "-q",
        ...made.splice(0).flatMap((name) => ["-c", `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]),
      ],
      {
        stdio: "ignore",
        env: {
          PATH: "/usr/bin:/bin",
          PGHOST: base.hostname,
          PGPORT: base.port,
          PGUSER: decodeURIComponent(base.username),
          PGPASSWORD: decodeURIComponent(base.password),
          PGDATABASE: "postgres",
        },
      },
    );
  };
  return {
    dir: "",
    url,
    stop: dropMade,
    async createDatabase() {
      if (made.length === 0) process.on("exit", dropMade);
      const name = `test_${process.pid}_${made.length + 1}_${randomBytes(3).toString("hex")}`;
      await createDatabaseOn(url(), name);
      made.push(name);
      return url(name);
    },
  };
}

async function createDatabaseOn(serverUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
}

/**
 * This test file's server (testPostgres: the run's cluster, or a cluster of the file's own), ready
 * before its tests where PostgreSQL is present and released after them (the file's databases dropped,
 * or its own cluster stopped): `cluster()` answers it (a test calls skipWithoutPostgres first).
 */
export function postgresClusterForFile(): { cluster(): PostgresCluster } {
  let started: PostgresCluster | undefined;
  before(async () => {
    if (!postgresMissing) started = await testPostgres();
  });
  after(() => started?.stop());
  return {
    cluster() {
      if (!started) throw new Error(postgresMissing ?? "the cluster did not start");
      return started;
    },
  };
}
