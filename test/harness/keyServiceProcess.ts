import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type PostgresCluster, postgresMissing, testPostgres } from "./postgres.ts";
import { spawnUntilReady } from "./readyProcess.ts";
import { assertConformingAnswer, checkAnswersOf, checkerFor } from "./serviceContract.ts";

/** Runs the real key-service command line, as users and scripts outside the project do. */

export const REPO_ROOT = resolve(import.meta.dirname, "../..");
export const CLI = join(REPO_ROOT, "electron/cli/key-service.ts");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function makeTempDir(prefix = "keydesk-test-"): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** The environment a child gets: this one without any KEY_SERVICE_* leaking in from the caller. */
function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("KEY_SERVICE_")),
  );
  return { ...env, ...extra };
}

/**
 * Runs a key-service command to its end. Under KEYDESK_TEST_STORE=postgres an `account` command's
 * `--data-dir DIR` names that data dir's database instead (storeArgs), as the service it serves uses.
 */
export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const at = args.indexOf("--data-dir");
  const dir = args[at + 1];
  if (TEST_STORE === "postgres" && args[0] === "account" && at > 0 && dir !== undefined)
    args = [...args.slice(0, at), ...(await storeArgs(dir)), ...args.slice(at + 2)];
  return spawnCli(args, env);
}

function spawnCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: REPO_ROOT,
      env: childEnv(env),
      stdio: "pipe",
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code, stdout, stderr }));
    child.stdin.end();
  });
}

/**
 * The store the service runs on in these tests: SQLite (a data dir) unless KEYDESK_TEST_STORE=postgres,
 * which runs the same tests on PostgreSQL: the test run's private cluster (testPostgres in postgres.ts)
 * and a fresh database per service, each named by its test's data dir. The CLI then gets
 * `--database-url` and `--data-key-file` (a generated key, mode 0600, in that data dir) instead of
 * `--data-dir`, exactly as a user would run it.
 */
export const TEST_STORE: "sqlite" | "postgres" =
  process.env.KEYDESK_TEST_STORE === "postgres" ? "postgres" : "sqlite";

/**
 * A test's skip option where it reads or writes the SQLite data dir itself (its files, an in-process
 * DataDir): under KEYDESK_TEST_STORE=postgres it is skipped, saying why; PostgreSQL's own tests of
 * the same behaviour are under test/integration/service/store/.
 */
export const SQLITE_ONLY: string | false =
  TEST_STORE === "postgres" && "works on the SQLite data dir itself (KEYDESK_TEST_STORE=postgres)";

let cluster: Promise<PostgresCluster> | undefined;
const databases = new Map<string, Promise<string[]>>();

/** The CLI's options that name the store of the service whose data dir is `dataDir`. */
export function storeArgs(dataDir: string): Promise<string[]> {
  if (TEST_STORE === "sqlite") return Promise.resolve(["--data-dir", dataDir]);
  const key = resolve(dataDir);
  let args = databases.get(key);
  if (!args) {
    args = (async () => {
      if (postgresMissing) throw new Error(`KEYDESK_TEST_STORE=postgres: ${postgresMissing}`);
      cluster ??= testPostgres();
      const url = await (await cluster).createDatabase();
      await mkdir(key, { recursive: true, mode: 0o700 });
      const keyFile = join(key, "test-data.key");
      await writeFile(keyFile, randomBytes(32).toString("base64"), { mode: 0o600 });
      return ["--database-url", url, "--data-key-file", keyFile];
    })();
    databases.set(key, args);
  }
  return args;
}

/** Adds an account with the CLI and returns its accountKey. */
export async function addAccount(dataDir: string, username: string, password: string, parent?: string) {
  const args = ["account", "add", ...(await storeArgs(dataDir)), "--username", username];
  if (parent) args.push("--parent", parent);
  const result = await runCli(args, { KEY_SERVICE_PASSWORD: password });
  if (result.code !== 0) throw new Error(`account add failed (${result.code}): ${result.stderr}`);
  return result.stdout.trim();
}

export interface ServeProcess {
  url: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  /** Every line the process printed on stdout so far. */
  stdoutLines: string[];
  stderr(): string;
  /** Sends a signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface ServeOptions {
  dataDir: string;
  /** The options naming the store, instead of those of `dataDir` (storeArgs), e.g. a database of the test's own. */
  storeArgs?: string[];
  env?: NodeJS.ProcessEnv;
  args?: string[];
  /**
   * The largest file the process may write, in bytes (RLIMIT_FSIZE, set with util-linux's prlimit):
   * a write past it fails as a full disk would, without a file system of its own. Linux only.
   */
  fileSizeLimit?: number;
}

const LISTENING = /^key-service listening on (http:\/\/127\.0\.0\.1:(\d+))$/;

/**
 * Starts `key-service serve --port 0` and resolves once it printed its listening line and served
 * its /openapi.json: from then until it stops, every answer `request` gets from it is checked
 * against that document.
 */
export async function startServe(options: ServeOptions): Promise<ServeProcess> {
  const args = [
    CLI,
    "serve",
    "--port",
    "0",
    ...(options.storeArgs ?? (await storeArgs(options.dataDir))),
    ...(options.args ?? []),
  ];
  const limit = options.fileSizeLimit;
  const ready = await spawnUntilReady({
    name: "serve",
    ...(limit !== undefined && { command: "prlimit" }),
    args: limit === undefined ? args : [`--fsize=${limit}:${limit}`, "--", process.execPath, ...args],
    cwd: REPO_ROOT,
    env: childEnv({ KEY_SERVICE_LOG_LEVEL: "warn", ...options.env }),
    ready: LISTENING,
    timeoutMs: 20_000,
  });
  const { child, match, stdoutLines, stderr, stop } = ready;
  const url = match[1] as string;
  let stopChecking: () => void;
  try {
    stopChecking = await checkAnswersOf(url);
  } catch (error) {
    await stop("SIGKILL");
    throw error;
  }
  return {
    url,
    port: Number(match[2]),
    dataDir: options.dataDir,
    child,
    stdoutLines,
    stderr,
    stop: (signal) => {
      stopChecking();
      return stop(signal);
    },
  };
}

export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
}

export interface ApiResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
}

export interface ApiRequest {
  method?: string;
  /** Sent as-is (not normalized), so odd paths reach the server as written. */
  path: string;
  authorization?: string;
  /** Serialized as JSON with Content-Type: application/json. */
  body?: unknown;
  /** A body sent byte for byte, with the headers given. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** Source address of the connection (any 127.x.y.z works on loopback). */
  localAddress?: string;
  /**
   * The peer is deliberately not a Keydesk key service although one was checked at this address:
   * its answer is not held to the key service's /openapi.json. Answers of peers the harness never
   * registered (a foreign remote, the web host) are not checked anyway.
   */
  foreignPeer?: true;
}

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 64 });

/**
 * One HTTP request over loopback, with the raw and parsed answer. An answer of a key service the
 * harness checks (see serviceContract.ts) that does not conform to its /openapi.json fails the
 * request, and so the test that made it, malformed requests and their error answers included.
 */
export async function request(baseUrl: string, options: ApiRequest): Promise<ApiResponse> {
  const checker = options.foreignPeer ? undefined : checkerFor(baseUrl);
  const method =
    options.method ?? (options.body === undefined && options.rawBody === undefined ? "GET" : "POST");
  const res = await send(baseUrl, { ...options, method });
  if (checker) await assertConformingAnswer(checker, { method, path: options.path, ...res });
  return res;
}

function send(baseUrl: string, options: ApiRequest & { method: string }): Promise<ApiResponse> {
  const headers: Record<string, string> = { accept: "application/json", ...options.headers };
  if (options.authorization) headers.authorization = options.authorization;
  let payload: string | Buffer | undefined = options.rawBody;
  if (options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  // Node frames a body with Content-Length by itself only for some methods: a DELETE or OPTIONS
  // body would go out unframed and be read by the server as the start of the next request.
  const named = (name: string) => Object.keys(headers).some((header) => header.toLowerCase() === name);
  if (payload !== undefined && !named("content-length") && !named("transfer-encoding"))
    headers["content-length"] = String(Buffer.byteLength(payload));
  const url = new URL(baseUrl);
  return new Promise((resolveResponse, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: options.method,
        path: options.path,
        headers,
        agent: options.localAddress ? undefined : keepAlive,
        localAddress: options.localAddress,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolveResponse({ status: res.statusCode as number, headers: res.headers, text, json });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** startServe's env for a service whose clock is `ms` behind this machine's (clockBehind.ts). */
export function clockBehindEnv(ms: number): NodeJS.ProcessEnv {
  const preload = join(REPO_ROOT, "test", "harness", "clockBehind.ts");
  return {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${preload}`.trim(),
    KEYDESK_TEST_CLOCK_BEHIND_MS: String(ms),
  };
}
