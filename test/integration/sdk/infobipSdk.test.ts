import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { AuthType, Infobip } from "@infobip-api/sdk";
import { type ApiKey, assertOk, type Service, startService } from "../service/serviceFixture.ts";

/**
 * The provider's official Node SDK, unchanged, pointed at the local key service with App keys.
 * If the SDK and the service disagree, the service is wrong.
 */

interface SdkResponse<T> {
  status: number;
  data: T;
}
/** The SDK returns (does not throw) axios errors; this turns both into status + data. */
async function sdkCall<T>(call: Promise<unknown>): Promise<SdkResponse<T>> {
  const result = (await call) as { status?: number; data?: T; response?: { status: number; data: T } };
  if (result.response) return { status: result.response.status, data: result.response.data };
  return { status: result.status as number, data: result.data as T };
}

interface CapturedPin {
  pinId: string;
  to: string;
  channel: string;
  pin: string;
  text: string;
  verified: boolean;
}

let service: Service;
let allKey: ApiKey;
let tfaKey: ApiKey;
let applicationId: string;
let messageId: string;

const sdkWith = (key: ApiKey) =>
  new Infobip({ baseUrl: service.url, apiKey: key.publicApiKey, authType: AuthType.ApiKey }).service.twoFA;

async function capturedPins(pinId: string): Promise<CapturedPin[]> {
  const res = await service.call({ path: "/local/1/pins", authorization: service.auth("dev") });
  const { pins } = assertOk<{ pins: CapturedPin[] }>(res);
  return pins.filter((pin) => pin.pinId === pinId);
}

before(async () => {
  service = await startService([{ username: "dev", password: "dev-password-1" }]);
  allKey = await service.createKey("dev", { name: "backend", permissions: ["ALL"] });
  tfaKey = await service.createKey("dev", { name: "mobile app", permissions: ["TFA"] });
  const twoFA = sdkWith(allKey);
  const application = await sdkCall<{ applicationId: string; name: string; enabled: boolean }>(
    twoFA.createApplication({
      name: "login",
      enabled: true,
      configuration: { pinAttempts: 5, pinTimeToLive: "10m", sendPinPerPhoneNumberLimit: "10/1d" },
    }),
  );
  assert.equal(application.status, 200, JSON.stringify(application.data));
  applicationId = application.data.applicationId;
  const template = await sdkCall<{ messageId: string; pinPlaceholder: string }>(
    twoFA.createMessageTemplate(applicationId, {
      messageText: "Your login code is {{pin}}",
      pinType: "NUMERIC",
      pinLength: 6,
    }),
  );
  assert.equal(template.status, 200, JSON.stringify(template.data));
  messageId = template.data.messageId;
});

after(() => service.close());

test("a TFA key cannot create a 2FA application through the SDK (403)", async () => {
  const res = await sdkCall<unknown>(sdkWith(tfaKey).createApplication({ name: "nope" }));
  assert.equal(res.status, 403);
});

test("an ALL key reads back the application and template it created through the SDK", async () => {
  const twoFA = sdkWith(allKey);
  const application = await sdkCall<{ name: string; configuration: { pinAttempts: number } }>(
    twoFA.getApplication(applicationId),
  );
  assert.equal(application.status, 200);
  assert.equal(application.data.name, "login");
  assert.equal(application.data.configuration.pinAttempts, 5);
  const templates = await sdkCall<{ messageId: string }[]>(twoFA.getMessageTemplates(applicationId));
  assert.deepEqual(
    templates.data.map((t) => t.messageId),
    [messageId],
  );
});

test("with a TFA key: send over SMS, read the PIN from the inbox, verify it, and see the number verified", async () => {
  const twoFA = sdkWith(tfaKey);
  const sent = await sdkCall<{ pinId: string; to: string; ncStatus: string; smsStatus: string }>(
    twoFA.sendPINCodeSMS({ applicationId, messageId, to: "41793026727" }, true),
  );
  assert.equal(sent.status, 200, JSON.stringify(sent.data));
  assert.equal(sent.data.to, "41793026727");
  assert.equal(sent.data.ncStatus, "NC_DESTINATION_REACHABLE");
  assert.equal(sent.data.smsStatus, "MESSAGE_SENT");

  const [captured] = await capturedPins(sent.data.pinId);
  assert.ok(captured, "the PIN was captured in the inbox");
  assert.equal(captured.channel, "SMS");
  assert.match(captured.pin, /^\d{6}$/);
  assert.equal(captured.text, `Your login code is ${captured.pin}`);

  const wrong = await sdkCall<{ verified: boolean; pinError: string; attemptsRemaining: number }>(
    twoFA.verifyPhoneNumber(sent.data.pinId, { pin: captured.pin === "000000" ? "111111" : "000000" }),
  );
  assert.equal(wrong.status, 200);
  assert.equal(wrong.data.verified, false);
  assert.equal(wrong.data.pinError, "WRONG_PIN");
  assert.equal(wrong.data.attemptsRemaining, 4);

  // verifyPinLimit defaults to one verification per 3 s per PIN.
  await new Promise((resolve) => setTimeout(resolve, 3100));
  const verified = await sdkCall<{ pinId: string; msisdn: string; verified: boolean }>(
    twoFA.verifyPhoneNumber(sent.data.pinId, { pin: captured.pin }),
  );
  assert.equal(verified.status, 200, JSON.stringify(verified.data));
  assert.deepEqual(
    { pinId: verified.data.pinId, msisdn: verified.data.msisdn, verified: verified.data.verified },
    { pinId: sent.data.pinId, msisdn: "41793026727", verified: true },
  );

  const status = await sdkCall<{ verifications: { msisdn: string; verified: boolean; sentAt: number }[] }>(
    twoFA.getVerificationStatus(applicationId, { msisdn: "41793026727" }),
  );
  assert.equal(status.status, 200, JSON.stringify(status.data));
  assert.ok(status.data.verifications.some((v) => v.msisdn === "41793026727" && v.verified));
});

test("with a TFA key: send over voice and resend over SMS and voice; every message is captured with the same PIN", async () => {
  const twoFA = sdkWith(tfaKey);
  const sent = await sdkCall<{ pinId: string; callStatus: string }>(
    twoFA.sendPINCodeVoice({ applicationId, messageId, to: "41793026728" }),
  );
  assert.equal(sent.status, 200, JSON.stringify(sent.data));
  assert.equal(typeof sent.data.callStatus, "string");

  const resentSms = await sdkCall<{ pinId: string; smsStatus: string }>(
    twoFA.resendPINCodeSMS(sent.data.pinId),
  );
  assert.equal(resentSms.status, 200, JSON.stringify(resentSms.data));
  assert.equal(resentSms.data.pinId, sent.data.pinId);
  const resentVoice = await sdkCall<{ pinId: string }>(twoFA.resendPINCodeVoice(sent.data.pinId));
  assert.equal(resentVoice.status, 200, JSON.stringify(resentVoice.data));

  const captured = await capturedPins(sent.data.pinId);
  assert.deepEqual(captured.map((pin) => pin.channel).sort(), ["SMS", "VOICE", "VOICE"]);
  assert.equal(new Set(captured.map((pin) => pin.pin)).size, 1, "a resend sends the same PIN");

  const verified = await sdkCall<{ verified: boolean }>(
    twoFA.verifyPhoneNumber(sent.data.pinId, { pin: captured[0]?.pin }),
  );
  assert.equal(verified.data.verified, true);
});
