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
  allKeyAuthorization,
  capturedPin,
  inbox,
  type Json,
  sleep,
  type TfaCaller,
  tfaCaller,
  wrongPin,
} from "./tfaFixture.ts";

/** Resending a PIN (SMS and voice) and the send limits of an application. */

let service: Service;
let owner: TfaCaller;
let ownerKey: TfaCaller;
let stranger: TfaCaller;
let number = 41790002000;

before(async () => {
  service = await startService([
    { username: "owner", password: "owner-secret-1" },
    { username: "stranger", password: "stranger-secret-1" },
  ]);
  owner = tfaCaller(service, service.auth("owner"));
  ownerKey = tfaCaller(service, await allKeyAuthorization(service, "owner"));
  stranger = tfaCaller(service, service.auth("stranger"));
});
after(async () => {
  await service?.close();
});

const resend = (caller: TfaCaller, pinId: string, body?: unknown, voice = false) =>
  caller.call("POST", `/2fa/2/pin/${pinId}/resend${voice ? "/voice" : ""}`, body);

describe("resending a PIN", () => {
  test("over SMS sends the same PIN again with the same expiry; both messages are captured", async () => {
    const ids = await owner.setUp({}, { messageText: "Hi {{name}}: {{pin}}", pinType: "NUMERIC" });
    const to = String(number++);
    const { pinId } = await owner.sendSms({ ...ids, to, placeholders: { name: "Ann" } });
    const first = await capturedPin(service, "owner", pinId);
    await sleep(5);
    const again = assertOk<Json>(await resend(ownerKey, pinId, { placeholders: { name: "Bob" } }));
    assert.deepEqual(again, { pinId, to, smsStatus: "MESSAGE_SENT" });
    const messages = (await inbox(service, "owner", `?to=${to}`)).filter((pin) => pin.pinId === pinId);
    assert.equal(messages.length, 2);
    const [newest, oldest] = messages as [(typeof messages)[0], (typeof messages)[0]];
    assert.deepEqual(oldest, first);
    assert.equal(newest.pin, first.pin);
    assert.equal(newest.text, `Hi Bob: ${first.pin}`);
    assert.equal(newest.expiresAt, first.expiresAt, "a resend does not extend the time to live");
    assert.ok(newest.sentAt > first.sentAt);
    assert.equal((await owner.verify(pinId, first.pin)).status, 200);
  });

  test("over voice answers callStatus and captures a VOICE message; an empty body is fine", async () => {
    const ids = await owner.setUp();
    const { pinId } = await owner.sendSms({ ...ids, to: String(number++) });
    const res = await owner.call("POST", `/2fa/2/pin/${pinId}/resend/voice`);
    const again = assertOk<Json>(res);
    assert.equal(again.callStatus, "PENDING_ACCEPTED");
    assert.deepEqual(Object.keys(again), ["pinId", "to", "callStatus"]);
    const captured = await capturedPin(service, "owner", pinId);
    assert.equal(captured.channel, "VOICE");
    assertOk(await resend(owner, pinId, {}));
  });

  test("an expired, used-up or already verified PIN is not resent (400)", async () => {
    const ids = await owner.setUp({ pinAttempts: 1, allowMultiplePinVerifications: false });
    const shortLived = await owner.setUp({ pinTimeToLive: "500ms" });
    const expired = await owner.sendSms({ ...shortLived, to: String(number++) });
    const usedUp = await owner.sendSms({ ...ids, to: String(number++) });
    const verified = await owner.sendSms({ ...ids, to: String(number++) });
    const usedUpPin = (await capturedPin(service, "owner", usedUp.pinId)).pin;
    await owner.verify(usedUp.pinId, wrongPin(usedUpPin));
    await owner.verify(verified.pinId, (await capturedPin(service, "owner", verified.pinId)).pin);
    assert.match(assertApiError(await resend(owner, usedUp.pinId), 400, "BAD_REQUEST").text, /attempts/);
    assert.match(assertApiError(await resend(owner, verified.pinId), 400, "BAD_REQUEST").text, /verified/);
    await sleep(600);
    assert.match(
      assertApiError(await resend(owner, expired.pinId, {}, true), 400, "BAD_REQUEST").text,
      /expired/,
    );
  });

  test("unknown fields, another account's PIN and a disabled application are refused", async () => {
    const ids = await owner.setUp();
    const { pinId } = await owner.sendSms({ ...ids, to: String(number++) });
    assertValidationError(await resend(owner, pinId, { to: "41790000000" }), "to");
    assertApiError(await resend(stranger, pinId), 404, "NOT_FOUND");
    assertApiError(await resend(owner, "0123456789ABCDEF0123456789ABCDEF", {}, true), 404, "NOT_FOUND");
    await owner.call("PUT", `/2fa/2/applications/${ids.applicationId}`, { enabled: false });
    assertApiError(await resend(owner, pinId), 403, "FORBIDDEN");
  });
});

describe("send limits", () => {
  test("sendPinPerPhoneNumberLimit counts sends and resends to one number; other numbers still get PINs", async () => {
    const ids = await owner.setUp({ sendPinPerPhoneNumberLimit: "3/1d" });
    const to = String(number++);
    const { pinId } = await owner.sendSms({ ...ids, to });
    assertOk(await resend(owner, pinId));
    await owner.sendSms({ ...ids, to: `+${to}` });
    const before = (await inbox(service, "owner", `?to=${to}`)).length;
    const refused = await owner.send({ ...ids, to });
    const exception = assertApiError(refused, 429, "TOO_MANY_REQUESTS");
    assert.match(exception.text, /sendPinPerPhoneNumberLimit \(3\/1d\)/);
    assert.ok(Number(refused.headers["retry-after"]) > 80_000, String(refused.headers["retry-after"]));
    assertApiError(await resend(owner, pinId, {}, true), 429, "TOO_MANY_REQUESTS");
    assertApiError(await owner.call("POST", "/2fa/2/pin/voice", { ...ids, to }), 429, "TOO_MANY_REQUESTS");
    assert.equal((await inbox(service, "owner", `?to=${to}`)).length, before, "nothing more was captured");
    assert.equal((await owner.sendSms({ ...ids, to: String(number++) })).smsStatus, "MESSAGE_SENT");
  });

  test("sendPinPerApplicationLimit counts every message of the application, whatever the number", async () => {
    const ids = await owner.setUp({ sendPinPerApplicationLimit: "2/1d" });
    await owner.sendSms({ ...ids, to: String(number++) });
    await owner.call("POST", "/2fa/2/pin/voice", { ...ids, to: String(number++) });
    const exception = assertApiError(
      await owner.send({ ...ids, to: String(number++) }),
      429,
      "TOO_MANY_REQUESTS",
    );
    assert.match(exception.text, /sendPinPerApplicationLimit \(2\/1d\)/);
    const other = await owner.setUp();
    assert.equal((await owner.sendSms({ ...other, to: String(number++) })).smsStatus, "MESSAGE_SENT");
  });

  test("sends and resends made at once cannot slip past a limit together: exactly the limit's number are sent", async () => {
    const ids = await owner.setUp({ sendPinPerPhoneNumberLimit: "4/1d" });
    const to = String(number++);
    const { pinId } = await owner.sendSms({ ...ids, to });
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, () => owner.send({ ...ids, to })),
      ...Array.from({ length: 5 }, () => resend(owner, pinId)),
    ]);
    assert.equal(
      answers.filter((res) => res.status === 200).length,
      3,
      "1 before and 3 at once: the limit of 4",
    );
    for (const res of answers.filter((answer) => answer.status !== 200)) {
      assertApiError(res, 429, "TOO_MANY_REQUESTS");
    }
    assert.equal((await inbox(service, "owner", `?to=${to}`)).length, 4, "4 messages captured, no more");
  });

  test("a limit's window slides: once the oldest message leaves it, one more may be sent", async () => {
    const ids = await owner.setUp({ sendPinPerPhoneNumberLimit: "1/1s" });
    const to = String(number++);
    await owner.sendSms({ ...ids, to });
    assertApiError(await owner.send({ ...ids, to }), 429, "TOO_MANY_REQUESTS");
    await sleep(1050);
    assert.equal((await owner.sendSms({ ...ids, to })).smsStatus, "MESSAGE_SENT");
  });

  test("lowering a limit with PUT applies to the next send", async () => {
    const ids = await owner.setUp();
    const to = String(number++);
    await owner.sendSms({ ...ids, to });
    await owner.call("PUT", `/2fa/2/applications/${ids.applicationId}`, {
      configuration: { sendPinPerPhoneNumberLimit: "1/1h" },
    });
    assertApiError(await owner.send({ ...ids, to }), 429, "TOO_MANY_REQUESTS");
  });
});
