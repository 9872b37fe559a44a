import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  type ServeProcess,
  startServe,
} from "../../harness/keyServiceProcess.ts";
import { connectRaw, type RawAnswer, within } from "../../harness/rawSocket.ts";
import { checkerFor } from "../../harness/serviceContract.ts";

/**
 * Requests refused before any route sees them (by Node's HTTP parser, or for a missing Host) are
 * answered in the one error shape, with a text that names what is wrong, documented by the
 * document's `x-refused-requests`, and the connection ends with the answer.
 */

const KEYS = "/settings/1/accounts/_/api-keys";

describe("refusals of the HTTP layer", () => {
  let dir: string;
  let server: ServeProcess;
  const auth = basic("admin", "admin-password");

  before(async () => {
    dir = await makeTempDir();
    await addAccount(dir, "admin", "admin-password");
    server = await startServe({ dataDir: dir });
  });
  after(async () => {
    const exit = await server?.stop();
    await removeDir(dir);
    assert.deepEqual(exit, { code: 0, signal: null }, `serve stderr: ${server?.stderr()}`);
  });

  /** Sends `bytes` on a fresh connection; resolves with the answer once the server has closed it. */
  async function refusalOf(bytes: string): Promise<RawAnswer> {
    const connection = await connectRaw(server.port);
    connection.socket.write(bytes);
    const raw = await within(
      10_000,
      `connection closed after ${JSON.stringify(bytes.slice(0, 80))}`,
      connection.closed,
    );
    const answer = (await connection.answer().catch(() => undefined)) as RawAnswer | undefined;
    assert.ok(answer, `no whole answer to ${JSON.stringify(bytes.slice(0, 80))}: ${JSON.stringify(raw)}`);
    return answer;
  }

  const head = (lines: string[]) => `${lines.join("\r\n")}\r\n\r\n`;
  const post = (headers: string[], body: string) =>
    head([
      `POST ${KEYS} HTTP/1.1`,
      "Host: 127.0.0.1",
      `Authorization: ${auth}`,
      "Content-Type: application/json",
      ...headers,
    ]) + body;

  const cases: { name: string; bytes: string; status: number; text: RegExp }[] = [
    {
      name: "an HTTP/1.1 request without Host",
      bytes: head([`GET ${KEYS} HTTP/1.1`, `Authorization: ${auth}`]),
      status: 400,
      text: /Host header/,
    },
    {
      name: "a POST without Host, to a path that takes no POST",
      bytes: `${head(["POST /openapi.json HTTP/1.1", "Content-Length: 2"])}{}`,
      status: 400,
      text: /Host header/,
    },
    {
      name: "both Transfer-Encoding and Content-Length",
      bytes: post(["Transfer-Encoding: chunked", "Content-Length: 13"], '0\r\n\r\n{"name":"x"}'),
      status: 400,
      text: /both Transfer-Encoding and Content-Length/,
    },
    {
      name: "a chunk size that is not hexadecimal",
      bytes: post(["Transfer-Encoding: chunked"], 'zz\r\n{"name":"x"}\r\n0\r\n\r\n'),
      status: 400,
      text: /chunked request body is malformed/,
    },
    {
      name: "a chunk extension with a control character",
      bytes: post(["Transfer-Encoding: chunked"], "1;\u0001\r\n{\r\n0\r\n\r\n"),
      status: 400,
      text: /chunked request body is malformed/,
    },
    {
      name: "a Transfer-Encoding that does not end with chunked",
      bytes: post(["Transfer-Encoding: gzip"], ""),
      status: 400,
      text: /Transfer-Encoding/,
    },
    {
      name: "two Content-Length headers",
      bytes: post(["Content-Length: 2", "Content-Length: 3"], "{}"),
      status: 400,
      text: /more than one Content-Length/,
    },
    {
      name: "a Content-Length that is not a number",
      bytes: post(["Content-Length: two"], "{}"),
      status: 400,
      text: /Content-Length header is not a number/,
    },
    {
      name: "a header name with a space",
      bytes: head([`GET ${KEYS} HTTP/1.1`, "Host: 127.0.0.1", "Bad Name: x"]),
      status: 400,
      text: /header is not valid/,
    },
    {
      name: "a folded header line",
      bytes: head([`GET ${KEYS} HTTP/1.1`, "Host: 127.0.0.1", `Authorization: ${auth}`, " continued"]),
      status: 400,
      text: /header is not valid/,
    },
    {
      name: "a method that is not HTTP",
      bytes: head([`G@T ${KEYS} HTTP/1.1`, "Host: 127.0.0.1"]),
      status: 400,
      text: /method/,
    },
    {
      name: "lines ending in a bare LF",
      bytes: `GET ${KEYS} HTTP/1.1\nHost: 127.0.0.1\n\n`,
      status: 400,
      text: /CRLF/,
    },
    {
      name: "a space in the path",
      bytes: head([`GET ${KEYS}/a b HTTP/1.1`, "Host: 127.0.0.1"]),
      status: 400,
      text: /percent-encode/,
    },
    {
      name: "headers over 16 KiB",
      bytes: head([`GET ${KEYS} HTTP/1.1`, "Host: 127.0.0.1", `X-Filler: ${"a".repeat(20_000)}`]),
      status: 431,
      text: /headers are too large/,
    },
  ];

  for (const { name, bytes, status, text } of cases) {
    test(`${name}: ${status} in the error shape, and the connection closes`, async () => {
      const answer = await refusalOf(bytes);
      assert.equal(answer.status, status, answer.text);
      assert.equal(answer.headers.connection, "close");
      assert.match(answer.headers["content-type"] ?? "", /^application\/json\b/);
      const exception = (answer.json as { requestError: { serviceException: Record<string, string> } })
        .requestError.serviceException;
      assert.equal(exception.messageId, "BAD_REQUEST");
      assert.match(exception.text ?? "", text);
      (await (checkerFor(server.url) as NonNullable<ReturnType<typeof checkerFor>>)).assertRefusal({
        method: "GET",
        path: "/",
        status: answer.status,
        headers: answer.headers,
        text: answer.text,
      });
    });
  }

  test("HTTP/1.0 needs no Host: served as usual", async () => {
    const connection = await connectRaw(server.port);
    connection.socket.write(head([`GET ${KEYS} HTTP/1.0`, `Authorization: ${auth}`]));
    const answer = await within(10_000, "answer", connection.answer());
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json, { apiKeys: [] });
  });
});
