import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { DRAIN_LIMIT_BYTES, DRAIN_TIME_MS } from "../../../electron/service/http/unreadBodies.ts";
import { connectRaw, type RawAnswer, type RawConnection, within } from "../../harness/rawSocket.ts";
import { type Service, startService } from "./serviceFixture.ts";

/**
 * A request refused before its body has arrived (too large by its Content-Length, not JSON)
 * gets its answer once the body is in, read and dropped, so that the answer is never lost to a
 * connection reset; a connection kept open then serves the next request. Bodies too large to be
 * worth reading, or too slow, get the answer at once and the connection closes.
 */

const KEYS = "/settings/1/accounts/_/api-keys";

describe("bodies of refused requests", () => {
  let service: Service;
  let auth: string;

  before(async () => {
    service = await startService([{ username: "admin", password: "admin-password" }]);
    auth = service.auth("admin");
  });
  after(() => service?.close());

  const head = (lines: string[]) => `${lines.join("\r\n")}\r\n\r\n`;
  const postHead = (headers: string[]) =>
    head([`POST ${KEYS} HTTP/1.1`, "Host: 127.0.0.1", `Authorization: ${auth}`, ...headers]);
  const listRequest = () =>
    head([`GET ${KEYS}?limit=1 HTTP/1.1`, "Host: 127.0.0.1", `Authorization: ${auth}`]);

  function assertRefusal(answer: RawAnswer, status: number, code: string): void {
    assert.equal(answer.status, status, answer.text);
    const error = answer.json as { requestError?: { serviceException?: { messageId?: string } } };
    assert.equal(error.requestError?.serviceException?.messageId, code, answer.text);
    assert.equal(answer.headers["content-type"], "application/json; charset=utf-8");
  }

  /** Writes `parts` one after another, the connection's write errors (EPIPE after a close) collected. */
  function writeAll(connection: RawConnection, parts: string[]): string[] {
    const errors: string[] = [];
    for (const part of parts) {
      connection.socket.write(part, (error) => {
        if (error) errors.push((error as NodeJS.ErrnoException).code ?? error.message);
      });
    }
    return errors;
  }

  const slices = (text: string, from: number, size: number) =>
    Array.from({ length: Math.ceil((text.length - from) / size) }, (_, i) =>
      text.slice(from + i * size, from + (i + 1) * size),
    );

  test("a body over 64 KiB sent in parts is read to its end, then answered 413, and the connection ends cleanly", async () => {
    const connection = await connectRaw(service.serve.port);
    const body = JSON.stringify({ name: "x".repeat(70_000) });
    connection.socket.write(postHead(["Content-Type: application/json", `Content-Length: ${body.length}`]));
    connection.socket.write(body.slice(0, 10_000));
    // Answered and closed at this point, the rest of the body would meet a closed socket: a reset.
    await sleep(300);
    assert.equal(connection.received(), "", "no answer before the body is in");
    const writeErrors = writeAll(connection, slices(body, 10_000, 20_000));
    await within(10_000, "the connection's end", connection.closed);
    const answer = await connection.answer();
    assertRefusal(answer, 413, "PAYLOAD_TOO_LARGE");
    assert.equal(answer.headers.connection, "close");
    assert.equal(connection.failure(), undefined, "the connection ended without a reset");
    assert.deepEqual(writeErrors, [], "the whole body was taken");
  });

  test("a chunked body over 64 KiB is read to its end, then answered 413, and the connection ends cleanly", async () => {
    const connection = await connectRaw(service.serve.port);
    connection.socket.write(postHead(["Content-Type: application/json", "Transfer-Encoding: chunked"]));
    const piece = "y".repeat(16 * 1024);
    const writeErrors = writeAll(connection, Array(8).fill(`${piece.length.toString(16)}\r\n${piece}\r\n`));
    await sleep(300);
    assert.equal(connection.received(), "", "no answer before the body is in");
    writeErrors.push(...writeAll(connection, ["0\r\n\r\n"]));
    await within(10_000, "the connection's end", connection.closed);
    assertRefusal(await connection.answer(), 413, "PAYLOAD_TOO_LARGE");
    assert.equal(connection.failure(), undefined, "the connection ended without a reset");
    assert.deepEqual(writeErrors, [], "the whole body was taken");
  });

  test("a body that is not JSON is read to its end, then answered 415, and the connection serves the next request", async () => {
    const connection = await connectRaw(service.serve.port);
    const body = "z".repeat(200_000);
    connection.socket.write(postHead(["Content-Type: text/plain", `Content-Length: ${body.length}`]));
    connection.socket.write(body.slice(0, 1_000));
    await sleep(300);
    assert.equal(connection.received(), "", "no answer before the body is in");
    const writeErrors = writeAll(connection, slices(body, 1_000, 50_000));
    const answer = await within(10_000, "the 415", connection.answer());
    assertRefusal(answer, 415, "UNSUPPORTED_MEDIA_TYPE");
    assert.notEqual(answer.headers.connection, "close");
    const offset = connection.received().length;
    connection.socket.write(listRequest());
    const next = await within(10_000, "the next request's answer", connection.answer(offset));
    assert.equal(next.status, 200, next.text);
    assert.deepEqual(next.json, { apiKeys: [], nextCursor: null });
    assert.equal(connection.failure(), undefined);
    assert.deepEqual(writeErrors, []);
    connection.socket.destroy();
  });

  test("a body that is not JSON, with the client's Connection: close: read to its end, answered 415, closed cleanly", async () => {
    const connection = await connectRaw(service.serve.port);
    const body = "z".repeat(200_000);
    connection.socket.write(
      postHead(["Content-Type: text/plain", `Content-Length: ${body.length}`, "Connection: close"]),
    );
    connection.socket.write(body.slice(0, 1_000));
    await sleep(300);
    assert.equal(connection.received(), "", "no answer before the body is in");
    const writeErrors = writeAll(connection, slices(body, 1_000, 50_000));
    await within(10_000, "the connection's end", connection.closed);
    assertRefusal(await connection.answer(), 415, "UNSUPPORTED_MEDIA_TYPE");
    assert.equal(connection.failure(), undefined, "the connection ended without a reset");
    assert.deepEqual(writeErrors, [], "the whole body was taken");
  });

  test(`a body declared over ${DRAIN_LIMIT_BYTES / 1024 / 1024} MiB is not read: 413 at once, and the connection closes`, async () => {
    const connection = await connectRaw(service.serve.port);
    connection.socket.write(
      postHead(["Content-Type: application/json", `Content-Length: ${DRAIN_LIMIT_BYTES + 1}`]),
    );
    const answer = await within(5_000, "the 413", connection.answer());
    assertRefusal(answer, 413, "PAYLOAD_TOO_LARGE");
    assert.equal(answer.headers.connection, "close");
    await within(5_000, "the connection's end", connection.closed);
  });

  test(`a body that stops arriving is waited for ${DRAIN_TIME_MS / 1000} s: then its 413, and the connection closes`, async () => {
    const connection = await connectRaw(service.serve.port);
    connection.socket.write(postHead(["Content-Type: application/json", "Content-Length: 70000"]));
    connection.socket.write("{");
    const started = Date.now();
    const answer = await within(DRAIN_TIME_MS + 5_000, "the 413", connection.answer());
    assert.ok(Date.now() - started >= DRAIN_TIME_MS - 100, "answered before the wait was over");
    assertRefusal(answer, 413, "PAYLOAD_TOO_LARGE");
    assert.equal(answer.headers.connection, "close");
    await within(5_000, "the connection's end", connection.closed);
  });
});
