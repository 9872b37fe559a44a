import assert from "node:assert/strict";
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
import { connectRaw, type RawConnection, within } from "../../harness/rawSocket.ts";
import { openEventStream } from "../service/tfa/eventStreamClient.ts";

/**
 * `serve --request-timeout` and `--max-connections`: a client that stops sending in the middle
 * of a request is answered 408 and let go, and a flood of connections is capped, while other
 * clients keep being served. Without them one client could hold every file descriptor.
 */

const KEYS = "/settings/1/accounts/_/api-keys";
const TIMEOUT_SECONDS = 2;
/** The timeout, Node's checking interval (a quarter of it) and room for a busy machine. */
const CLOSED_WITHIN_MS = TIMEOUT_SECONDS * 1000 + 8_000;

/** Headers of a request whose body never comes in full: no credentials, as an attacker sends it. */
const stalledBodyHead = (port: number) =>
  `POST ${KEYS} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
  "Content-Length: 1000\r\n\r\n";

function assertRequestTimeout(raw: string, context: string): void {
  const [head = "", body = ""] = raw.split("\r\n\r\n", 2);
  assert.match(head, /^HTTP\/1\.1 408 Request Timeout\r\n/, `${context}: ${raw}`);
  assert.match(head, /\r\nconnection: close(\r\n|$)/i, `${context}: ${raw}`);
  const exception = JSON.parse(body).requestError.serviceException;
  assert.equal(exception.messageId, "BAD_REQUEST", context);
  assert.match(exception.text, /not received in time/, context);
}

// The tests wait out request timeouts (seconds each) on servers of their own, so three run at once:
// the waits overlap instead of adding up.
describe("serve: stalled requests and the connection cap", { concurrency: 3 }, () => {
  let dir: string;
  const running: ServeProcess[] = [];
  const auth = basic("admin", "admin-password");
  /** A normal client: its own connection, closed after the answer, so it holds no place. */
  const listKeys = (server: ServeProcess) =>
    request(server.url, { path: KEYS, authorization: auth, headers: { connection: "close" } });

  before(async () => {
    dir = await makeTempDir();
    await addAccount(dir, "admin", "admin-password");
  });
  after(async () => {
    await Promise.all(running.map((server) => server.stop("SIGKILL")));
    await removeDir(dir);
  });
  const serve = async (args: string[]) => {
    const server = await startServe({ dataDir: dir, args });
    running.push(server);
    return server;
  };

  test("stalled bodies, heads and silent connections get a 408 in the error shape and are closed; others are served meanwhile", async () => {
    const server = await serve(["--request-timeout", String(TIMEOUT_SECONDS)]);
    const startedAt = Date.now();
    const stalled: { name: string; connection: RawConnection }[] = [];
    for (let index = 0; index < 10; index += 1) {
      const connection = await connectRaw(server.port);
      connection.socket.write(`${stalledBodyHead(server.port)}{"name":"a`);
      stalled.push({ name: `stalled body ${index}`, connection });
    }
    for (let index = 0; index < 5; index += 1) {
      const connection = await connectRaw(server.port);
      connection.socket.write(`POST ${KEYS} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le`);
      stalled.push({ name: `stalled head ${index}`, connection });
    }
    for (let index = 0; index < 3; index += 1) {
      stalled.push({ name: `silent connection ${index}`, connection: await connectRaw(server.port) });
    }
    // While they hang, a normal client is served, again and again.
    for (let round = 0; round < 5; round += 1) {
      const list = await listKeys(server);
      assert.equal(list.status, 200, list.text);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (const { name, connection } of stalled) {
      const raw = await within(CLOSED_WITHIN_MS, `${name} closed`, connection.closed);
      assertRequestTimeout(raw, name);
    }
    // The timeout is what ended them, not something that cuts every connection at once.
    assert.ok(Date.now() - startedAt >= TIMEOUT_SECONDS * 1000 - 100);
    assert.equal((await listKeys(server)).status, 200);
  });

  test("a body that trickles in, a byte at a time, is still cut at the timeout", async () => {
    const server = await serve(["--request-timeout", String(TIMEOUT_SECONDS)]);
    const connection = await connectRaw(server.port);
    connection.socket.write(stalledBodyHead(server.port));
    const trickle = setInterval(() => connection.socket.writable && connection.socket.write(" "), 200);
    try {
      assertRequestTimeout(
        await within(CLOSED_WITHIN_MS, "trickling body closed", connection.closed),
        "trickle",
      );
    } finally {
      clearInterval(trickle);
    }
  });

  test("the PIN event stream lives on well past the request timeout, and delivers", async () => {
    const server = await serve(["--request-timeout", String(TIMEOUT_SECONDS)]);
    const stream = await openEventStream(server.url, "/local/1/pins/stream", auth);
    try {
      assert.equal(stream.status, 200);
      let ended = false;
      void stream.ended.then(() => {
        ended = true;
      });
      await new Promise((resolve) => setTimeout(resolve, TIMEOUT_SECONDS * 1000 * 3));
      assert.equal(ended, false, "the stream was cut");
      const call = async (path: string, body: unknown) => {
        const res = await request(server.url, { method: "POST", path, authorization: auth, body });
        assert.equal(res.status, 200, res.text);
        return res.json as Record<string, string>;
      };
      const { applicationId } = await call("/2fa/2/applications", { name: "login" });
      const { messageId } = await call(`/2fa/2/applications/${applicationId}/messages`, {
        messageText: "Your code is {{pin}}",
        pinType: "NUMERIC",
      });
      const { pinId } = await call("/2fa/2/pin", { applicationId, messageId, to: "41793026727" });
      await stream.waitForEvent(
        (event) => event.event === "pin" && event.data.includes(String(pinId)),
        10_000,
      );
    } finally {
      stream.close();
    }
  });

  test("connections over --max-connections are closed at once; once others leave, clients are served again", async () => {
    const cap = 4;
    const server = await serve(["--max-connections", String(cap)]);
    // Each connection proves it was accepted by getting an answer, then stays open (keep-alive).
    const held: RawConnection[] = [];
    for (let index = 0; index < cap; index += 1) {
      const connection = await connectRaw(server.port);
      connection.socket.write(
        `GET /local/1/no-such-route HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`,
      );
      const answer = await within(5_000, `held connection ${index} answered`, connection.answer());
      assert.equal(answer.status, 404);
      held.push(connection);
    }
    const extra = await connectRaw(server.port);
    extra.socket.write(`GET /local/1/no-such-route HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`);
    assert.equal(await within(5_000, "connection over the cap closed", extra.closed), "");
    for (const connection of held) assert.equal(connection.socket.destroyed, false, "a held one was cut");
    for (const connection of held) connection.socket.destroy();
    // The server sees the closes a moment later; until then a client may still be turned away.
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        const list = await listKeys(server);
        assert.equal(list.status, 200, list.text);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    assert.match(server.stderr(), /maximum of connections/);
  });

  for (const [label, args, env, pattern] of [
    [
      "--request-timeout 0",
      ["--request-timeout", "0"],
      {},
      /--request-timeout must be a whole number from 1/,
    ],
    ["--request-timeout 1.5", ["--request-timeout", "1.5"], {}, /--request-timeout must be/],
    ["--request-timeout abc", ["--request-timeout", "abc"], {}, /--request-timeout must be/],
    [
      "--max-connections 0",
      ["--max-connections", "0"],
      {},
      /--max-connections must be a whole number from 1/,
    ],
    ["--max-connections -5", ["--max-connections", "-5"], {}, /--max-connections/],
    [
      "KEY_SERVICE_MAX_CONNECTIONS=many",
      [],
      { KEY_SERVICE_MAX_CONNECTIONS: "many" },
      /KEY_SERVICE_MAX_CONNECTIONS must be a whole number/,
    ],
    [
      "KEY_SERVICE_REQUEST_TIMEOUT=0",
      [],
      { KEY_SERVICE_REQUEST_TIMEOUT: "0" },
      /KEY_SERVICE_REQUEST_TIMEOUT must be a whole number/,
    ],
  ] as const) {
    test(`${label}: exit code 2 with a line saying what is accepted`, async () => {
      const result = await runCli(["serve", "--data-dir", dir, ...args], env);
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stdout, "");
      assert.match(result.stderr, pattern);
    });
  }

  test("KEY_SERVICE_REQUEST_TIMEOUT sets the timeout; --request-timeout wins over it", async () => {
    const server = await startServe({
      dataDir: dir,
      env: { KEY_SERVICE_REQUEST_TIMEOUT: String(TIMEOUT_SECONDS) },
    });
    running.push(server);
    const connection = await connectRaw(server.port);
    connection.socket.write(stalledBodyHead(server.port));
    assertRequestTimeout(await within(CLOSED_WITHIN_MS, "closed", connection.closed), "env");

    const flagWins = await startServe({
      dataDir: dir,
      env: { KEY_SERVICE_REQUEST_TIMEOUT: "abc" },
      args: ["--request-timeout", String(TIMEOUT_SECONDS)],
    });
    running.push(flagWins);
    const other = await connectRaw(flagWins.port);
    other.socket.write(stalledBodyHead(flagWins.port));
    assertRequestTimeout(await within(CLOSED_WITHIN_MS, "closed", other.closed), "flag");
  });
});
