import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { assertApiError, assertValidationError, type Service, startService } from "../serviceFixture.ts";
import { type EventStreamClient, openEventStream, type StreamEvent } from "./eventStreamClient.ts";
import {
  allKeyAuthorization,
  type CapturedPin,
  inbox,
  type TfaCaller,
  tfaCaller,
  wrongPin,
} from "./tfaFixture.ts";

/** GET /local/1/pins/stream: server-sent events for every message captured and every PIN state change. */

let service: Service;
const callers: Record<string, TfaCaller> = {};
const apps: Record<string, { applicationId: string; messageId: string }> = {};
const streams: EventStreamClient[] = [];
let heartbeatStream: EventStreamClient;
let heartbeatOpenedAt: number;

async function subscribe(username: string, query = ""): Promise<EventStreamClient> {
  const stream = await openEventStream(service.url, `/local/1/pins/stream${query}`, service.auth(username));
  streams.push(stream);
  assert.equal(stream.status, 200);
  return stream;
}

before(async () => {
  service = await startService([
    { username: "owner", password: "owner-secret-1" },
    { username: "child", password: "child-secret-1", parent: "owner" },
    { username: "stranger", password: "stranger-secret-1" },
  ]);
  for (const username of ["owner", "child", "stranger"]) {
    callers[username] = tfaCaller(service, await allKeyAuthorization(service, username));
    apps[username] = await (callers[username] as TfaCaller).setUp({
      sendPinPerPhoneNumberLimit: "100/1d",
      verifyPinLimit: "100/1s",
    });
  }
  heartbeatOpenedAt = Date.now();
  heartbeatStream = await subscribe("stranger");
});
after(async () => {
  for (const stream of streams) stream.close();
  await service?.close();
});

const send = (username: string, to: string) =>
  (callers[username] as TfaCaller).sendSms({ ...apps[username], to });
const captured = (pinId: string) => (event: StreamEvent) =>
  event.event === "pin" && (JSON.parse(event.data) as CapturedPin).pinId === pinId;

describe("events", () => {
  test("a PIN sent after subscribing arrives as a pin event equal to its entry in the inbox", async () => {
    const stream = await subscribe("owner");
    assert.match(String(stream.headers["content-type"]), /^text\/event-stream\b/);
    assert.equal(stream.headers["cache-control"], "no-cache");
    const { pinId } = await send("owner", "41793026727");
    const event = await stream.waitForEvent(captured(pinId));
    const [listed] = (await inbox(service, "owner")).filter((pin) => pin.pinId === pinId);
    assert.deepEqual(JSON.parse(event.data), listed);
  });

  test("verifications that change a PIN arrive as pin-state events", async () => {
    const stream = await subscribe("owner");
    const { pinId } = await send("owner", "41793026728");
    const pin = (JSON.parse((await stream.waitForEvent(captured(pinId))).data) as CapturedPin).pin;
    const owner = callers.owner as TfaCaller;
    await owner.verify(pinId, wrongPin(pin));
    const state = (match: (data: Record<string, unknown>) => boolean) => (event: StreamEvent) =>
      event.event === "pin-state" && match(JSON.parse(event.data));
    const wrong = await stream.waitForEvent(state((data) => data.pinId === pinId));
    assert.deepEqual(JSON.parse(wrong.data), {
      pinId,
      applicationId: apps.owner?.applicationId,
      to: "41793026728",
      attemptsRemaining: 9,
      verified: false,
    });
    await owner.verify(pinId, pin);
    const verified = await stream.waitForEvent(
      state((data) => data.pinId === pinId && data.verified === true),
    );
    assert.equal(JSON.parse(verified.data).attemptsRemaining, 9);
  });

  test("resends arrive too, one event per message", async () => {
    const stream = await subscribe("owner");
    const { pinId } = await send("owner", "41793026729");
    await (callers.owner as TfaCaller).call("POST", `/2fa/2/pin/${pinId}/resend/voice`);
    await stream.waitForEvent((event) => event.event === "pin" && JSON.parse(event.data).channel === "VOICE");
    assert.equal(stream.events.filter(captured(pinId)).length, 2);
  });
});

describe("scope and filters", () => {
  test("a stream carries the account's and its sub-accounts' messages, never a stranger's", async () => {
    const ownerStream = await subscribe("owner");
    const childStream = await subscribe("child");
    const theirs = await send("stranger", "41794440000");
    const childs = await send("child", "41794440001");
    const last = await send("owner", "41794440002");
    await ownerStream.waitForEvent(captured(last.pinId));
    assert.ok(
      ownerStream.events.some(captured(childs.pinId)),
      "the sub-account's message reached the parent",
    );
    assert.ok(
      ownerStream.events.findIndex(captured(childs.pinId)) <
        ownerStream.events.findIndex(captured(last.pinId)),
      "events arrive in the order they happened, the first one of a sub-account too",
    );
    assert.ok(!ownerStream.events.some(captured(theirs.pinId)), "a stranger's message reached the stream");
    await childStream.waitForEvent(captured(childs.pinId));
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(!childStream.events.some(captured(last.pinId)), "the parent's message reached the sub-account");
  });

  test("?to= and ?applicationId= narrow the stream", async () => {
    const byNumber = await subscribe("owner", "?to=%2B41795550000");
    const byApp = await subscribe("owner", `?applicationId=${apps.child?.applicationId}`);
    await send("owner", "41795550001");
    const wanted = await send("owner", "41795550000");
    const childs = await send("child", "41795550002");
    await byNumber.waitForEvent(captured(wanted.pinId));
    await byApp.waitForEvent(captured(childs.pinId));
    assert.deepEqual(
      byNumber.events.map((event) => JSON.parse(event.data).pinId),
      [wanted.pinId],
    );
    assert.deepEqual(
      byApp.events.map((event) => JSON.parse(event.data).pinId),
      [childs.pinId],
    );
  });

  test("?to= on the stream is a search like the inbox's: part of a number, written with spaces", async () => {
    const byPart = await subscribe("owner", `?to=${encodeURIComponent("+41 79 666")}`);
    const other = await send("owner", "41785550000");
    const first = await send("owner", "41796660001");
    const second = await send("owner", "41796660002");
    await byPart.waitForEvent(captured(second.pinId));
    const received = byPart.events.map((event) => JSON.parse(event.data).pinId);
    assert.deepEqual(received, [first.pinId, second.pinId]);
    assert.ok(!received.includes(other.pinId));
  });

  test("the stream takes Basic credentials and a valid query, answered in the error shape", async () => {
    assertApiError(await service.call({ path: "/local/1/pins/stream" }), 401, "UNAUTHORIZED");
    const key = callers.owner?.authorization as string;
    assertApiError(
      await service.call({ path: "/local/1/pins/stream", authorization: key }),
      403,
      "FORBIDDEN",
    );
    const bad = await service.call({
      path: "/local/1/pins/stream?to=abc",
      authorization: service.auth("owner"),
    });
    assertValidationError(bad, "to");
  });

  test("limit is not a parameter of the stream: refused like any unknown one, as the stream declares", async () => {
    // As a stream client opens it (a stream that is not refused never ends).
    const stream = await openEventStream(service.url, "/local/1/pins/stream?limit=5", service.auth("owner"));
    const status = stream.status;
    stream.close();
    assert.equal(status, 400, "a stream with limit was opened");
    const limited = await service.call({
      path: "/local/1/pins/stream?limit=5",
      authorization: service.auth("owner"),
    });
    assert.deepEqual(assertValidationError(limited, "limit"), ["is not a known field"]);
    const doc = (await service.call({ path: "/openapi.json", authorization: "" })).json as {
      paths: Record<string, { get: { parameters?: { name: string; in: string }[] } }>;
    };
    const declared = (doc.paths["/local/1/pins/stream"]?.get.parameters ?? [])
      .filter((parameter) => parameter.in === "query")
      .map((parameter) => parameter.name);
    assert.deepEqual(declared.sort(), ["applicationId", "to"]);
  });
});

describe("lifetime", () => {
  test("an idle stream gets a heartbeat comment every 15 s", async () => {
    const waited = Date.now() - heartbeatOpenedAt;
    const comment = await heartbeatStream.waitForComment((text) => text === "heartbeat", 17_000 - waited);
    assert.equal(comment, "heartbeat");
    assert.ok(Date.now() - heartbeatOpenedAt >= 14_000, "the heartbeat came much earlier than 15 s");
  });

  test("stopping the service ends open streams and exits promptly", async () => {
    const open = await subscribe("owner");
    const started = Date.now();
    const exit = await service.serve.stop("SIGTERM");
    assert.equal(exit.code, 0, service.serve.stderr());
    assert.ok(Date.now() - started < 5000, `stopping took ${Date.now() - started} ms`);
    await open.ended;
    await heartbeatStream.ended;
  });
});
