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
  type Json,
  sleep,
  type TfaCaller,
  tfaCaller,
  wrongPin,
} from "./tfaFixture.ts";

/** POST /2fa/2/pin/{pinId}/verify and GET /2fa/2/pin/{pinId}/status: the rules are enforced. */

let service: Service;
let owner: TfaCaller;
let ownerKey: TfaCaller;
let stranger: TfaCaller;
let number = 41790001000;

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

/** Sends a PIN with a fresh number in a new application; returns its pinId, the PIN and the number. */
async function sentPin(configuration: Json = {}, template?: Json, caller = owner) {
  const ids = await caller.setUp({ verifyPinLimit: "100/1s", ...configuration }, template);
  const to = String(number++);
  const { pinId } = await caller.sendSms({ ...ids, to });
  const { pin } = await capturedPin(service, caller === stranger ? "stranger" : "owner", pinId);
  return { pinId, pin, to, ...ids };
}

const verify = async (pinId: string, pin: string, caller = owner) =>
  assertOk<Json>(await caller.verify(pinId, pin));
const status = async (pinId: string, caller = owner) => assertOk<Json>(await caller.status(pinId));

describe("verifying a PIN", () => {
  test("the right PIN verifies; status and the inbox then show it verified", async () => {
    const { pinId, pin, to } = await sentPin();
    assert.deepEqual(await status(pinId), { pinId, msisdn: to, verified: false, attemptsRemaining: 10 });
    assert.deepEqual(await verify(pinId, pin, ownerKey), {
      pinId,
      msisdn: to,
      verified: true,
      attemptsRemaining: 10,
    });
    assert.deepEqual(await status(pinId, ownerKey), {
      pinId,
      msisdn: to,
      verified: true,
      attemptsRemaining: 10,
    });
    const captured = await capturedPin(service, "owner", pinId);
    assert.equal(captured.verified, true);
  });

  test("each wrong PIN answers WRONG_PIN and uses one attempt", async () => {
    const { pinId, pin, to } = await sentPin({ pinAttempts: 3 });
    assert.deepEqual(await verify(pinId, wrongPin(pin)), {
      pinId,
      msisdn: to,
      verified: false,
      attemptsRemaining: 2,
      pinError: "WRONG_PIN",
    });
    assert.equal((await verify(pinId, wrongPin(pin))).attemptsRemaining, 1);
    assert.deepEqual(await status(pinId), { pinId, msisdn: to, verified: false, attemptsRemaining: 1 });
    assert.equal((await capturedPin(service, "owner", pinId)).attemptsRemaining, 1);
    assert.equal((await verify(pinId, pin)).verified, true, "the right PIN still works with attempts left");
  });

  test("with no attempts left even the right PIN answers NO_MORE_PIN_ATTEMPTS", async () => {
    const { pinId, pin } = await sentPin({ pinAttempts: 2 });
    await verify(pinId, wrongPin(pin));
    const last = await verify(pinId, wrongPin(pin));
    assert.equal(last.pinError, "WRONG_PIN");
    assert.equal(last.attemptsRemaining, 0);
    const right = await verify(pinId, pin);
    assert.equal(right.verified, false);
    assert.equal(right.pinError, "NO_MORE_PIN_ATTEMPTS");
    assert.equal(right.attemptsRemaining, 0);
    assert.equal((await status(pinId)).pinError, "NO_MORE_PIN_ATTEMPTS");
  });

  test("after its time to live the PIN answers TTL_EXPIRED without using an attempt", async () => {
    const { pinId, pin } = await sentPin({ pinTimeToLive: "1s" });
    assert.equal((await status(pinId)).pinError, undefined);
    await sleep(1100);
    const late = await verify(pinId, pin);
    assert.equal(late.verified, false);
    assert.equal(late.pinError, "TTL_EXPIRED");
    assert.equal(late.attemptsRemaining, 10);
    const wrong = await verify(pinId, wrongPin(pin));
    assert.equal(wrong.pinError, "TTL_EXPIRED");
    assert.equal(wrong.attemptsRemaining, 10);
    assert.equal((await status(pinId)).pinError, "TTL_EXPIRED");
  });

  test("letters in a PIN are compared ignoring case", async () => {
    const { pinId, pin } = await sentPin({}, { messageText: "{{pin}}", pinType: "ALPHA", pinLength: 6 });
    assert.equal((await verify(pinId, pin.toLowerCase())).verified, true);
  });
});

describe("verifying a PIN twice", () => {
  test("with allowMultiplePinVerifications the right PIN verifies again", async () => {
    const { pinId, pin } = await sentPin({ allowMultiplePinVerifications: true });
    assert.equal((await verify(pinId, pin)).verified, true);
    const again = await verify(pinId, pin);
    assert.equal(again.verified, true);
    assert.equal(again.pinError, undefined);
  });

  test("without it a second verification answers verified false with NO_MORE_PIN_ATTEMPTS", async () => {
    const { pinId, pin, to } = await sentPin({ allowMultiplePinVerifications: false });
    assert.equal((await verify(pinId, pin)).verified, true);
    assert.deepEqual(await verify(pinId, pin), {
      pinId,
      msisdn: to,
      verified: false,
      attemptsRemaining: 10,
      pinError: "NO_MORE_PIN_ATTEMPTS",
    });
    assert.deepEqual(await status(pinId), { pinId, msisdn: to, verified: true, attemptsRemaining: 10 });
  });
});

describe("concurrent verifications of one PIN", () => {
  test("wrong PINs sent at once spend each attempt exactly once: one answer per attempt left, then NO_MORE_PIN_ATTEMPTS", async () => {
    const { pinId, pin, to } = await sentPin({ pinAttempts: 5, verifyPinLimit: "1000/1s" });
    const answers = await Promise.all(
      Array.from({ length: 12 }, async () => verify(pinId, wrongPin(pin), ownerKey)),
    );
    const wrong = answers.filter((answer) => answer.pinError === "WRONG_PIN");
    assert.deepEqual(
      wrong.map((answer) => answer.attemptsRemaining).sort(),
      [0, 1, 2, 3, 4],
      "each attempt was spent by one call, none twice",
    );
    const refused = answers.filter((answer) => answer.pinError === "NO_MORE_PIN_ATTEMPTS");
    assert.equal(refused.length, 7);
    for (const answer of refused) assert.equal(answer.attemptsRemaining, 0);
    assert.deepEqual(await status(pinId), {
      pinId,
      msisdn: to,
      verified: false,
      attemptsRemaining: 0,
      pinError: "NO_MORE_PIN_ATTEMPTS",
    });
    assert.equal((await verify(pinId, pin)).pinError, "NO_MORE_PIN_ATTEMPTS");
  });

  test("the right PIN among wrong ones sent at once: verified while an attempt is left, nothing spent after it, never below zero", async () => {
    const { pinId, pin } = await sentPin({
      pinAttempts: 3,
      verifyPinLimit: "1000/1s",
      allowMultiplePinVerifications: false,
    });
    const typed = [wrongPin(pin), wrongPin(pin), pin, wrongPin(pin), wrongPin(pin), wrongPin(pin)];
    const answers = await Promise.all(typed.map((attempt) => verify(pinId, attempt, ownerKey)));
    const spent = answers.filter((answer) => answer.pinError === "WRONG_PIN").length;
    assert.ok(spent <= 3, `at most the 3 attempts were spent, not ${spent}`);
    const final = await status(pinId);
    assert.equal(final.attemptsRemaining, 3 - spent);
    const right = answers[2] as Json;
    assert.equal(final.verified, right.verified, "the PIN is verified exactly when the right one said so");
    if (right.verified) {
      assert.equal(right.attemptsRemaining, 3 - spent, "no wrong PIN after it spent an attempt");
    } else {
      assert.equal(right.pinError, "NO_MORE_PIN_ATTEMPTS");
      assert.equal(spent, 3);
    }
  });
});

describe("verifyPinLimit", () => {
  test("more verifications of one PIN than the limit allows are 429 until the window passes", async () => {
    const { pinId, pin } = await sentPin({ verifyPinLimit: "2/1s" });
    await verify(pinId, wrongPin(pin));
    await verify(pinId, wrongPin(pin));
    const refused = await owner.verify(pinId, pin);
    const exception = assertApiError(refused, 429, "TOO_MANY_REQUESTS");
    assert.match(exception.text, /verifyPinLimit/);
    assert.ok(Number(refused.headers["retry-after"]) >= 1, String(refused.headers["retry-after"]));
    assert.equal((await status(pinId)).attemptsRemaining, 8, "a refused call uses no attempt");
    await sleep(1050);
    assert.equal((await verify(pinId, pin)).verified, true);
  });

  test("the limit counts per PIN: another PIN of the same application is not held back", async () => {
    const ids = await owner.setUp({ verifyPinLimit: "1/3s" });
    const a = await owner.sendSms({ ...ids, to: String(number++) });
    const b = await owner.sendSms({ ...ids, to: String(number++) });
    await owner.verify(a.pinId, "0000");
    assertApiError(await owner.verify(a.pinId, "0000"), 429, "TOO_MANY_REQUESTS");
    assertOk(await owner.verify(b.pinId, "0000"));
  });
});

describe("refused verifications", () => {
  test("a missing, empty or non-string pin is 400", async () => {
    const { pinId } = await sentPin();
    assertValidationError(await owner.call("POST", `/2fa/2/pin/${pinId}/verify`, {}), "pin");
    assertValidationError(await owner.verify(pinId, ""), "pin");
    assertValidationError(await owner.call("POST", `/2fa/2/pin/${pinId}/verify`, { pin: 1234 }), "pin");
  });

  test("another account's PIN and unknown pinIds are 404 for verify and status", async () => {
    const theirs = await sentPin({}, undefined, stranger);
    for (const pinId of [theirs.pinId, "0123456789ABCDEF0123456789ABCDEF", "nope"]) {
      assertApiError(await owner.verify(pinId, theirs.pin), 404, "NOT_FOUND");
      assertApiError(await owner.status(pinId), 404, "NOT_FOUND");
    }
    assert.equal(
      (await status(theirs.pinId, stranger)).verified,
      false,
      "the stranger's PIN was not touched",
    );
  });
});

describe("verification status", () => {
  test("lists the application's PINs to a number, newest first, with epoch-millisecond times", async () => {
    const ids = await owner.setUp({ verifyPinLimit: "100/1s" });
    const to = String(number++);
    const first = await owner.sendSms({ ...ids, to });
    await owner.sendSms({ ...ids, to: `+${to}` });
    await owner.sendSms({ ...ids, to: String(number++) });
    const { pin } = await capturedPin(service, "owner", first.pinId);
    const before = Date.now();
    await verify(first.pinId, pin);
    const path = `/2fa/2/applications/${ids.applicationId}/verifications`;
    const all = assertOk<{ verifications: Json[] }>(await ownerKey.call("GET", `${path}?msisdn=${to}`));
    assert.deepEqual(Object.keys(all), ["verifications"]);
    assert.equal(all.verifications.length, 2);
    const [newest, oldest] = all.verifications as [Json, Json];
    assert.deepEqual(Object.keys(newest), ["msisdn", "verified", "sentAt"]);
    assert.equal(newest.verified, false);
    assert.deepEqual(Object.keys(oldest), ["msisdn", "verified", "verifiedAt", "sentAt"]);
    assert.equal(oldest.msisdn, to);
    assert.equal(oldest.verified, true);
    assert.ok(Number.isInteger(oldest.verifiedAt) && Number.isInteger(oldest.sentAt));
    assert.ok((oldest.verifiedAt as number) >= before - 5 && (oldest.verifiedAt as number) <= Date.now() + 5);
    assert.ok((oldest.sentAt as number) <= (newest.sentAt as number));

    const verified = assertOk<{ verifications: Json[] }>(
      await owner.call("GET", `${path}/?msisdn=%2B${to}&verified=true`),
    );
    assert.deepEqual(verified.verifications, [oldest]);
    const unverified = assertOk<{ verifications: Json[] }>(
      await owner.call("GET", `${path}?msisdn=${to}&verified=false`),
    );
    assert.deepEqual(unverified.verifications, [newest]);
    const sent = assertOk<{ verifications: Json[] }>(
      await owner.call("GET", `${path}?msisdn=${to}&sent=true`),
    );
    assert.equal(sent.verifications.length, 2);
    const listed = async (filter: string) =>
      assertOk<{ verifications: Json[] }>(await owner.call("GET", `${path}?msisdn=${to}${filter}`))
        .verifications;
    assert.deepEqual(await listed("&verified=True"), [oldest]);
    assert.deepEqual(await listed("&verified=0"), [newest]);
    // A value that spells no boolean is no filter, the provider's default (SDKs send "undefined").
    for (const filter of ["&verified=undefined", "&verified=", "&sent=maybe"])
      assert.deepEqual(await listed(filter), all.verifications, filter);
    const none = assertOk<{ verifications: Json[] }>(await owner.call("GET", `${path}?msisdn=41799999999`));
    assert.deepEqual(none, { verifications: [] });
  });

  test("msisdn is required and checked; unknown parameters and applications are refused", async () => {
    const ids = await owner.setUp();
    const path = `/2fa/2/applications/${ids.applicationId}/verifications`;
    assertValidationError(await owner.call("GET", path), "msisdn");
    assertValidationError(await owner.call("GET", `${path}?msisdn=abc`), "msisdn");
    assertValidationError(
      await owner.call("GET", `${path}?msisdn=41790000000&verified=true&verified=false`),
      "verified",
    );
    assertValidationError(await owner.call("GET", `${path}?msisdn=41790000000&colour=red`), "colour");
    const theirs = await stranger.setUp();
    assertApiError(
      await owner.call("GET", `/2fa/2/applications/${theirs.applicationId}/verifications?msisdn=41790000000`),
      404,
      "NOT_FOUND",
    );
  });
});
