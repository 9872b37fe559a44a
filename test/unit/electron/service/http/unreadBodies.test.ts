import assert from "node:assert/strict";
import { test } from "node:test";
import Fastify from "fastify";
import { acceptJsonBodiesOnly } from "../../../../../electron/service/http/jsonBody.ts";
import { DRAIN_TIME_MS, drainUnreadBodies } from "../../../../../electron/service/http/unreadBodies.ts";

/**
 * Requests made in process (Fastify's inject, as the data copy and the OpenAPI tests make them)
 * carry no `complete` flag: a body read to its end, or one nobody reads, must not be waited for
 * as if more were coming. The drain over real sockets: test/integration/service/unreadBodies.test.ts.
 */

async function answerOf(inject: { method: "GET" | "POST"; payload?: string; contentType?: string }) {
  const app = Fastify({ logger: false });
  acceptJsonBodiesOnly(app);
  drainUnreadBodies(app);
  app.post("/echo", async (request) => ({ got: request.body }));
  app.get("/echo", async () => ({ got: null }));
  try {
    const started = performance.now();
    const res = await app.inject({
      method: inject.method,
      url: "/echo",
      ...(inject.payload !== undefined && { payload: inject.payload }),
      ...(inject.contentType && { headers: { "content-type": inject.contentType } }),
    });
    return { status: res.statusCode, body: res.body, ms: performance.now() - started };
  } finally {
    await app.close();
  }
}

// Far below the wait a body that never ends gets, far above what an in-process request takes.
const NOT_WAITED_MS = DRAIN_TIME_MS / 2;

test("an injected body that was read is answered at once", async () => {
  const answer = await answerOf({ method: "POST", payload: '{"a":1}', contentType: "application/json" });
  assert.equal(answer.status, 200);
  assert.deepEqual(JSON.parse(answer.body), { got: { a: 1 } });
  assert.ok(answer.ms < NOT_WAITED_MS, `answered after ${answer.ms} ms`);
});

test("an injected body nobody reads (415) is answered at once", async () => {
  const answer = await answerOf({ method: "POST", payload: "name=x", contentType: "text/plain" });
  assert.equal(answer.status, 415);
  assert.ok(answer.ms < NOT_WAITED_MS, `answered after ${answer.ms} ms`);
});

test("an injected GET is answered at once", async () => {
  const answer = await answerOf({ method: "GET" });
  assert.equal(answer.status, 200);
  assert.ok(answer.ms < NOT_WAITED_MS, `answered after ${answer.ms} ms`);
});
