import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  assertApiError,
  assertOk,
  assertValidationError,
  type Service,
  startService,
} from "../serviceFixture.ts";
import {
  API_DATETIME_PATTERN,
  allKeyAuthorization,
  capturedPin,
  type Json,
  TFA_ID_PATTERN,
  type TfaCaller,
  tfaCaller,
} from "./tfaFixture.ts";

/** POST /2fa/2/pin and /2fa/2/pin/voice: a new PIN, its answer, and the message captured for it. */

let service: Service;
let basicCaller: TfaCaller;
let keyCaller: TfaCaller;
let stranger: TfaCaller;
let ids: { applicationId: string; messageId: string };

before(async () => {
  service = await startService([
    { username: "owner", password: "owner-secret-1" },
    { username: "stranger", password: "stranger-secret-1" },
  ]);
  basicCaller = tfaCaller(service, service.auth("owner"));
  keyCaller = tfaCaller(service, await allKeyAuthorization(service, "owner"));
  stranger = tfaCaller(service, service.auth("stranger"));
  // Generous send limits: this file sends many PINs to few numbers.
  ids = await basicCaller.setUp(
    { sendPinPerPhoneNumberLimit: "1000/1d" },
    { messageText: "Hi {{name}}, your code is {{pin}}", pinType: "NUMERIC", pinLength: 6 },
  );
});
after(async () => {
  await service?.close();
});

describe("sending a PIN over SMS", () => {
  test("answers a pinId, the number, ncStatus and MESSAGE_SENT; the message is captured with the PIN filled in", async () => {
    const before = Date.now();
    const sent = await keyCaller.sendSms(
      { ...ids, to: "41793026727", placeholders: { name: "Ann" } },
      "?ncNeeded=true",
    );
    assert.deepEqual(Object.keys(sent), ["pinId", "to", "ncStatus", "smsStatus"]);
    assert.match(sent.pinId, TFA_ID_PATTERN);
    assert.equal(sent.to, "41793026727");
    assert.equal(sent.ncStatus, "NC_DESTINATION_REACHABLE");
    assert.equal(sent.smsStatus, "MESSAGE_SENT");

    const captured = await capturedPin(service, "owner", sent.pinId);
    assert.match(captured.pin, /^\d{6}$/);
    assert.equal(captured.text, `Hi Ann, your code is ${captured.pin}`);
    assert.equal(captured.channel, "SMS");
    assert.equal(captured.to, "41793026727");
    assert.equal(captured.applicationId, ids.applicationId);
    assert.equal(captured.messageId, ids.messageId);
    assert.equal(captured.attemptsRemaining, 10);
    assert.equal(captured.verified, false);
    assert.match(captured.sentAt, API_DATETIME_PATTERN);
    const sentAt = Date.parse(captured.sentAt.replace("+0000", "Z"));
    assert.ok(sentAt >= before - 5 && sentAt <= Date.now() + 5, captured.sentAt);
    const ttl = Date.parse(captured.expiresAt.replace("+0000", "Z")) - sentAt;
    assert.equal(ttl, 15 * 60_000, "the default time to live is 15 minutes");
  });

  test("ncStatus is answered by default and left out with ncNeeded=false; the SDK's trailing slash works", async () => {
    const byDefault = await basicCaller.sendSms({ ...ids, to: "41793026727" });
    assert.equal(byDefault.ncStatus, "NC_DESTINATION_REACHABLE");
    const without = await basicCaller.sendSms({ ...ids, to: "41793026727" }, "/?ncNeeded=false");
    assert.deepEqual(Object.keys(without), ["pinId", "to", "smsStatus"]);
    assert.equal(without.smsStatus, "MESSAGE_SENT");
  });

  test("ncNeeded is read the way clients spell booleans; a value that spells none means the default (true)", async () => {
    const ncStatusWith = async (query: string) =>
      (await basicCaller.sendSms({ ...ids, to: "41793026727" }, query)).ncStatus;
    // The official SDK sends ncNeeded=undefined when its optional argument is left out.
    for (const query of [
      "/?ncNeeded=undefined",
      "?ncNeeded=",
      "?ncNeeded",
      "?ncNeeded=maybe",
      "?ncNeeded=null",
    ])
      assert.equal(await ncStatusWith(query), "NC_DESTINATION_REACHABLE", query);
    for (const query of ["?ncNeeded=True", "?ncNeeded=1", "?ncNeeded=yes", "?ncNeeded=ON"])
      assert.equal(await ncStatusWith(query), "NC_DESTINATION_REACHABLE", query);
    for (const query of [
      "?ncNeeded=False",
      "?ncNeeded=FALSE",
      "?ncNeeded=0",
      "?ncNeeded=no",
      "?ncNeeded=off",
    ])
      assert.equal(await ncStatusWith(query), undefined, query);
    // Two values may contradict each other: that stays a 400.
    assertValidationError(
      await basicCaller.send({ ...ids, to: "41793026727" }, "?ncNeeded=true&ncNeeded=false"),
      "ncNeeded",
    );
  });

  test("a leading + is accepted and dropped; anything but 5 to 15 digits is refused", async () => {
    const sent = await basicCaller.sendSms({ ...ids, to: "+385981234567" });
    assert.equal(sent.to, "385981234567");
    assert.equal((await capturedPin(service, "owner", sent.pinId)).to, "385981234567");
    for (const to of [
      "1234",
      "1234567890123456",
      "41 79 302 67 27",
      "+41-79",
      "0041abc",
      "",
      "++41793026727",
    ]) {
      assertValidationError(await basicCaller.send({ ...ids, to }), "to");
    }
    assertValidationError(await basicCaller.send({ ...ids, to: 41793026727 }), "to");
  });

  test("every send makes a new PIN with a new pinId", async () => {
    const a = await basicCaller.sendSms({ ...ids, to: "41790000001" });
    const b = await basicCaller.sendSms({ ...ids, to: "41790000001" });
    assert.notEqual(a.pinId, b.pinId);
  });

  test("placeholders without a value stay as written; pin cannot be set as a placeholder", async () => {
    const sent = await basicCaller.sendSms({ ...ids, to: "41790000002" });
    const captured = await capturedPin(service, "owner", sent.pinId);
    assert.equal(captured.text, `Hi {{name}}, your code is ${captured.pin}`);
    assertValidationError(
      await basicCaller.send({ ...ids, to: "41790000002", placeholders: { pin: "0000" } }),
      "placeholders",
    );
    assertValidationError(
      await basicCaller.send({ ...ids, to: "41790000002", placeholders: { name: 7 } }),
      "placeholders.name",
    );
  });

  test("PINs are generated with the template's type and length", async () => {
    const cases: [string, number, RegExp][] = [
      ["NUMERIC", 4, /^\d{4}$/],
      ["ALPHA", 8, /^[A-Z]{8}$/],
      ["HEX", 12, /^[0-9A-F]{12}$/],
      ["ALPHANUMERIC", 16, /^[0-9A-Z]{16}$/],
      ["NUMERIC", 1, /^\d$/],
    ];
    for (const [pinType, pinLength, pattern] of cases) {
      const messageId = await basicCaller.createTemplate(ids.applicationId, {
        messageText: "{{pin}}",
        pinType,
        pinLength,
      });
      const sent = await basicCaller.sendSms({
        applicationId: ids.applicationId,
        messageId,
        to: "41790000003",
      });
      const captured = await capturedPin(service, "owner", sent.pinId);
      assert.match(captured.pin, pattern, `${pinType} ${pinLength}`);
      assert.equal(captured.text, captured.pin);
    }
  });
});

describe("sending a PIN over voice", () => {
  test("answers callStatus PENDING_ACCEPTED and captures a VOICE message", async () => {
    const res = await keyCaller.call("POST", "/2fa/2/pin/voice", {
      ...ids,
      to: "41793026727",
      placeholders: { name: "Bo" },
    });
    const sent = assertOk<Json & { pinId: string }>(res);
    assert.deepEqual(Object.keys(sent), ["pinId", "to", "callStatus"]);
    assert.equal(sent.callStatus, "PENDING_ACCEPTED");
    const captured = await capturedPin(service, "owner", sent.pinId);
    assert.equal(captured.channel, "VOICE");
    assert.equal(captured.text, `Hi Bo, your code is ${captured.pin}`);
  });
});

describe("refused sends", () => {
  test("missing fields and unknown fields are 400 naming them", async () => {
    const res = await basicCaller.send({});
    for (const field of ["applicationId", "messageId", "to"]) assertValidationError(res, field);
    assertValidationError(await basicCaller.send({ ...ids, to: "41793026727", notifyUrl: "x" }), "notifyUrl");
  });

  test("an unknown application or template, or one of another account, is 404", async () => {
    const theirs = await stranger.setUp();
    const cases = [
      { applicationId: "0123456789ABCDEF0123456789ABCDEF", messageId: ids.messageId },
      { applicationId: ids.applicationId, messageId: "0123456789ABCDEF0123456789ABCDEF" },
      { applicationId: theirs.applicationId, messageId: theirs.messageId },
      { applicationId: ids.applicationId, messageId: theirs.messageId },
    ];
    for (const body of cases) {
      assertApiError(await basicCaller.send({ ...body, to: "41793026727" }), 404, "NOT_FOUND");
      assertApiError(
        await basicCaller.call("POST", "/2fa/2/pin/voice", { ...body, to: "41793026727" }),
        404,
        "NOT_FOUND",
      );
    }
  });

  test("a disabled application sends nothing (403) until it is enabled again", async () => {
    const app = await basicCaller.setUp();
    await basicCaller.call("PUT", `/2fa/2/applications/${app.applicationId}`, { enabled: false });
    const refused = assertApiError(await basicCaller.send({ ...app, to: "41790000004" }), 403, "FORBIDDEN");
    assert.match(refused.text, /disabled/);
    assertApiError(
      await basicCaller.call("POST", "/2fa/2/pin/voice", { ...app, to: "41790000004" }),
      403,
      "FORBIDDEN",
    );
    await basicCaller.call("PUT", `/2fa/2/applications/${app.applicationId}`, { enabled: true });
    assert.equal((await basicCaller.sendSms({ ...app, to: "41790000004" })).smsStatus, "MESSAGE_SENT");
  });

  test("a send without credentials is 401", async () => {
    const res = await service.call({
      method: "POST",
      path: "/2fa/2/pin",
      body: { ...ids, to: "41793026727" },
    });
    assertApiError(res, 401, "UNAUTHORIZED");
  });
});
