import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, test } from "node:test";
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

/** The command-line contract of `key-service serve`: its one stdout line, ports, signals, errors. */

const LISTENING_LINE = /^key-service listening on http:\/\/127\.0\.0\.1:\d+$/;
const KEYS = "/settings/1/accounts/_/api-keys";

/** Resolves once `text()` matches, polling; fails after `ms`. */
async function waitFor(text: () => string, pattern: RegExp, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pattern.test(text())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; got: ${text()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Whether a TCP connection to host:port is accepted. */
function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("key-service serve", () => {
  let dir: string;
  const running: ServeProcess[] = [];
  const serve = async (args: string[] = [], env: NodeJS.ProcessEnv = {}) => {
    const server = await startServe({ dataDir: dir, args, env });
    running.push(server);
    return server;
  };

  before(async () => {
    dir = await makeTempDir();
    await addAccount(dir, "admin", "admin-password");
  });

  after(async () => {
    await Promise.all(running.map((server) => server.stop("SIGKILL")));
    await removeDir(dir);
  });

  test("prints exactly one stdout line, the listening address, and nothing more while it serves", async () => {
    const server = await serve();
    assert.equal(server.stdoutLines.length, 1);
    assert.match(server.stdoutLines[0] as string, LISTENING_LINE);
    const auth = basic("admin", "admin-password");
    await request(server.url, { method: "POST", path: KEYS, authorization: auth, body: { name: "k" } });
    await request(server.url, { path: KEYS, authorization: auth });
    await request(server.url, { path: KEYS, authorization: basic("admin", "wrong") });
    await request(server.url, { path: "/no/such/route" });
    await request(server.url, {
      method: "POST",
      path: KEYS,
      authorization: auth,
      rawBody: "{",
      headers: { "content-type": "application/json" },
    });
    const exit = await server.stop("SIGTERM");
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.deepEqual(server.stdoutLines, [`key-service listening on ${server.url}`]);
  });

  test("--port 0 picks a real free port, different for each process", async () => {
    const [first, second] = await Promise.all([serve(), serve()]);
    assert.ok(first && second);
    for (const server of [first, second]) {
      assert.ok(server.port > 0 && server.port < 65536, `port ${server.port}`);
      assert.equal(server.url, `http://127.0.0.1:${server.port}`);
      const answer = await request(server.url, { path: "/openapi.json" });
      assert.equal(answer.status, 200);
    }
    assert.notEqual(first.port, second.port);
    await Promise.all([first.stop(), second.stop()]);
  });

  test("SIGTERM stops it with exit code 0", async () => {
    const server = await serve();
    assert.deepEqual(await server.stop("SIGTERM"), { code: 0, signal: null });
    assert.equal(await canConnect("127.0.0.1", server.port), false, "the port is closed after the exit");
  });

  test("SIGINT stops it with exit code 0", async () => {
    const server = await serve();
    assert.deepEqual(await server.stop("SIGINT"), { code: 0, signal: null });
  });

  test("SIGTERM during a slow request lets that request finish with its 200, then exits 0", async () => {
    // A user whose password was never verified by this process: the first request pays for scrypt.
    await addAccount(dir, "slow", "slow-password");
    const server = await serve(["--log-level", "info"]);
    const pending = request(server.url, {
      method: "POST",
      path: KEYS,
      authorization: basic("slow", "slow-password"),
      body: { name: "created during shutdown" },
    });
    await waitFor(server.stderr, /"url":"\/settings\/1\/accounts\/_\/api-keys".*"msg":"incoming request"/);
    const signalledAt = Date.now();
    const exited = server.stop("SIGTERM");
    const answer = await pending;
    assert.equal(answer.status, 200, answer.text);
    const created = answer.json as { key: string; name: string };
    assert.equal(created.name, "created during shutdown");
    assert.deepEqual(await exited, { code: 0, signal: null }, server.stderr());
    // Only the create's own lines: the harness fetched /openapi.json from the process first.
    type LogLine = {
      reqId?: string;
      msg: string;
      time: number;
      req?: { url: string };
      res?: { statusCode: number };
    };
    const lines = server
      .stderr()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as LogLine);
    const create = lines.find((line) => line.msg === "incoming request" && line.req?.url === KEYS);
    const completed = lines.filter(
      (line) => line.msg === "request completed" && line.reqId === create?.reqId,
    );
    assert.equal(completed.length, 1, server.stderr());
    assert.equal(completed[0]?.res?.statusCode, 200);
    assert.ok(
      (completed[0]?.time ?? 0) >= signalledAt,
      "the request was still running when SIGTERM was sent, and completed after it",
    );

    // The answered create was committed before the database was closed.
    const again = await serve();
    const fetched = await request(again.url, {
      path: `${KEYS}/${created.key}`,
      authorization: basic("slow", "slow-password"),
    });
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.json, created);
    await again.stop();
  });

  test("a port already in use: non-zero exit and a stderr line naming the port", async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const result = await runCli(["serve", "--port", String(port), "--data-dir", dir]);
      assert.notEqual(result.code, 0);
      assert.equal(result.stdout, "");
      assert.match(result.stderr, new RegExp(`^key-service: .*port ${port}\\b.*in use`, "m"));
      assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  for (const [label, args] of [
    ["--port abc", ["--port", "abc"]],
    ["--port 65536", ["--port", "65536"]],
    ["--port -1", ["--port", "-1"]],
    ["--port without a value", ["--port"]],
    ["an unknown option", ["--verbose"]],
    ["a --password option", ["--password", "secret"]],
    ["a stray argument", ["extra"]],
  ] as const) {
    test(`${label}: exit code 2, usage on stderr, nothing on stdout`, async () => {
      const result = await runCli(["serve", "--data-dir", dir, ...args]);
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stdout, "");
      assert.match(result.stderr, /^key-service: .+/);
      assert.match(result.stderr, /usage:\n\s+key-service serve \[--host/);
    });
  }

  test("--host 127.0.0.1 binds that address only", async () => {
    for (const args of [["--host", "127.0.0.1"], []]) {
      const server = await serve(args);
      assert.match(server.stdoutLines[0] as string, LISTENING_LINE);
      assert.equal(await canConnect("127.0.0.1", server.port), true);
      // Bound to 127.0.0.1, not to every address: another loopback address is refused.
      assert.equal(await canConnect("127.0.0.2", server.port), false, `args ${args.join(" ")}`);
      assert.equal((await request(server.url, { path: "/openapi.json" })).status, 200);
      await server.stop();
    }
  });
});
