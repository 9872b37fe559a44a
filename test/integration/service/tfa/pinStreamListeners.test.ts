import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { FastifyInstance } from "fastify";
import { type DataDir, openDataDir } from "../../../../electron/service/dataDir.ts";
import { buildHttpApp } from "../../../../electron/service/http/app.ts";
import type { TfaSimulator } from "../../../../electron/service/tfa/tfaSimulator.ts";
import {
  addAccount,
  basic,
  makeTempDir,
  removeDir,
  SQLITE_ONLY,
} from "../../../harness/keyServiceProcess.ts";
import { checkAnswersOf } from "../../../harness/serviceContract.ts";
import { openEventStream } from "./eventStreamClient.ts";
import { sleep } from "./tfaFixture.ts";

/**
 * The PIN stream's subscriptions, watched from inside the service (the app listening on loopback):
 * each open stream holds one listener, released when its client goes away or the server closes.
 */

let dataDir: string;
let data: DataDir;
let app: FastifyInstance;
let tfa: TfaSimulator;
let baseUrl: string;
let stopChecking: (() => void) | undefined;
const auth = basic("owner", "owner-secret-1");

before(async () => {
  dataDir = await makeTempDir("keydesk-pin-stream-");
  await addAccount(dataDir, "owner", "owner-secret-1");
  data = openDataDir({ dataDir });
  ({ app, tfa } = buildHttpApp(data, { logLevel: "silent" }));
  baseUrl = await app.listen({ host: "127.0.0.1", port: 0 });
  stopChecking = await checkAnswersOf(baseUrl);
});
after(async () => {
  stopChecking?.();
  await app?.close();
  data?.close();
  await removeDir(dataDir);
});

async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100 && !condition(); i++) await sleep(20);
  assert.ok(condition(), what);
}

test("a client that disconnects releases its subscription", { skip: SQLITE_ONLY }, async () => {
  assert.equal(tfa.events.listenerCount, 0);
  const first = await openEventStream(baseUrl, "/local/1/pins/stream", auth);
  const second = await openEventStream(baseUrl, "/local/1/pins/stream?to=41793026727", auth);
  assert.equal(tfa.events.listenerCount, 2);
  first.close();
  await eventually(() => tfa.events.listenerCount === 1, "the first stream's listener is still subscribed");
  second.close();
  await eventually(() => tfa.events.listenerCount === 0, "the second stream's listener is still subscribed");
});

test("refused stream requests subscribe nothing", { skip: SQLITE_ONLY }, async () => {
  const refused = await openEventStream(baseUrl, "/local/1/pins/stream?to=nope", auth);
  assert.equal(refused.status, 400);
  await refused.ended;
  const unauthorized = await openEventStream(baseUrl, "/local/1/pins/stream", "Basic bm9ib2R5Og==");
  assert.equal(unauthorized.status, 401);
  assert.equal(tfa.events.listenerCount, 0);
});

test("closing the server ends open streams and releases their subscriptions", {
  skip: SQLITE_ONLY,
}, async () => {
  const stream = await openEventStream(baseUrl, "/local/1/pins/stream", auth);
  assert.equal(tfa.events.listenerCount, 1);
  const started = Date.now();
  await app.close();
  assert.ok(Date.now() - started < 2000, `close took ${Date.now() - started} ms`);
  await stream.ended;
  assert.equal(tfa.events.listenerCount, 0);
});

test("a stream whose sign-in is still being checked when the server starts closing does not hold the close", {
  skip: SQLITE_ONLY,
}, async () => {
  // A fresh app: its credentials are not verified yet, so the stream's sign-in runs scrypt, and
  // the close below begins while that check is under way.
  const fresh = buildHttpApp(data, { logLevel: "silent" });
  const url = await fresh.app.listen({ host: "127.0.0.1", port: 0 });
  const controller = new AbortController();
  const opening = fetch(`${url}/local/1/pins/stream`, {
    headers: { authorization: auth, accept: "text/event-stream" },
    signal: controller.signal,
  }).then(
    async (response) => {
      await response.body?.cancel();
      return response.status;
    },
    () => "aborted",
  );
  await sleep(5);
  const closed = fresh.app.close().then(() => "closed");
  const outcome = await Promise.race([closed, sleep(10_000).then(() => "still closing after 10 s")]);
  controller.abort();
  assert.equal(outcome, "closed");
  assert.equal(fresh.tfa.events.listenerCount, 0, "the late stream's subscription was released");
  await opening;
});
