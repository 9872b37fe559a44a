import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AuthType, Infobip } from "@infobip-api/sdk";
import { type Service, startService } from "../service/serviceFixture.ts";
import { type CapturedPin, capturedPin, inbox, wrongPin } from "../service/tfa/tfaFixture.ts";

/**
 * The provider's official Node SDK (@infobip-api/sdk), unchanged, against a real `serve` process:
 * every 2FA method it offers, on a client made the way its README makes one, called with the
 * default arguments (no optional second argument), with the auth types an app uses for API calls:
 * an App key (AuthType.ApiKey), the account's credentials (AuthType.Basic) and an IBSSO session
 * the SDK's own `auth.ibsso.create()` made (AuthType.IBSSO).
 * If the SDK and the service disagree, the service is wrong.
 */

const USERNAME = "dev";
const PASSWORD = "dev-password-1";

type TwoFA = ReturnType<typeof withApiKey>;

let service: Service;
let allKey: string;
let tfaKey: string;
/** An application and template made beforehand (through the SDK) for the client-side methods. */
let ids: { applicationId: string; messageId: string };
let nextNumber = 41793026700;

/** As the SDK's README makes a client. */
function withApiKey(apiKey: string) {
  const infobip = new Infobip({ baseUrl: service.url, apiKey, authType: AuthType.ApiKey });
  return infobip.service.twoFA;
}

function withBasic() {
  const infobip = new Infobip({
    baseUrl: service.url,
    username: USERNAME,
    password: PASSWORD,
    authType: AuthType.Basic,
  });
  return infobip.service.twoFA;
}

/** An IBSSO session's token, made with the SDK's own login. */
let ibssoToken: string;

function withIbsso() {
  const infobip = new Infobip({ baseUrl: service.url, ibssoToken, authType: AuthType.IBSSO });
  return infobip.service.twoFA;
}

/** The SDK's auth API, on a client made with the account's credentials. */
function sessions() {
  return new Infobip({
    baseUrl: service.url,
    username: USERNAME,
    password: PASSWORD,
    authType: AuthType.Basic,
  }).auth.ibsso;
}

interface SdkAnswer<T> {
  status: number;
  data: T;
  /** The path and query the SDK sent, to show what a real client asks for. */
  sent: string;
}

type AxiosLike<T> = { status: number; data: T; request: { path: string } };

/** The SDK returns (does not throw) axios errors; this turns both into status, data and the path sent. */
async function sdkCall<T>(call: Promise<unknown>): Promise<SdkAnswer<T>> {
  const result = (await call) as AxiosLike<T> & { response?: AxiosLike<T> };
  // The SDK's own argument checks and network errors come back as errors without an answer.
  if (result instanceof Error && !result.response) throw result;
  const answer = result.response ?? result;
  return { status: answer.status, data: answer.data, sent: answer.request.path };
}

async function ok<T>(call: Promise<unknown>): Promise<SdkAnswer<T>> {
  const answer = await sdkCall<T>(call);
  assert.equal(answer.status, 200, `${answer.sent}: ${JSON.stringify(answer.data)}`);
  return answer;
}

const newNumber = () => String(nextNumber++);

before(async () => {
  service = await startService([{ username: USERNAME, password: PASSWORD }]);
  allKey = (await service.createKey(USERNAME, { name: "backend", permissions: ["ALL"] })).publicApiKey;
  // The provider's way to get a key for a mobile app: a TFA key from POST /2fa/2/api-key.
  const created = await service.call({
    method: "POST",
    path: "/2fa/2/api-key",
    authorization: service.auth(USERNAME),
  });
  assert.equal(created.status, 200, created.text);
  tfaKey = created.json as string;
  ibssoToken = (await ok<{ token: string }>(sessions().create())).data.token;
  const twoFA = withBasic();
  const application = await ok<{ applicationId: string }>(
    twoFA.createApplication({
      name: "client side",
      configuration: { verifyPinLimit: "100/1s", sendPinPerPhoneNumberLimit: "100/1d" },
    }),
  );
  const template = await ok<{ messageId: string }>(
    twoFA.createMessageTemplate(application.data.applicationId, {
      messageText: "Your login code is {{pin}}",
      pinType: "NUMERIC",
      pinLength: 6,
    }),
  );
  ids = { applicationId: application.data.applicationId, messageId: template.data.messageId };
});

after(() => service?.close());

interface Application {
  applicationId: string;
  name: string;
  enabled: boolean;
  configuration: Record<string, unknown>;
}
interface Template {
  messageId: string;
  applicationId: string;
  messageText: string;
  pinType: string;
  pinLength: number;
}

/** Every application and template method of the SDK, in the order an app sets itself up. */
async function manageApplicationAndTemplate(twoFA: TwoFA): Promise<void> {
  const created = await ok<Application>(
    twoFA.createApplication({
      name: "login",
      enabled: true,
      configuration: { pinAttempts: 5, pinTimeToLive: "10m", sendPinPerPhoneNumberLimit: "10/1d" },
    }),
  );
  const { applicationId } = created.data;
  assert.equal(created.sent, "/2fa/2/applications");
  assert.deepEqual(created.data.configuration, {
    pinAttempts: 5,
    allowMultiplePinVerifications: true,
    pinTimeToLive: "10m",
    verifyPinLimit: "1/3s",
    sendPinPerApplicationLimit: "10000/1d",
    sendPinPerPhoneNumberLimit: "10/1d",
  });

  const listed = await ok<Application[]>(twoFA.getApplications());
  assert.ok(listed.data.some((app) => app.applicationId === applicationId));
  assert.deepEqual((await ok<Application>(twoFA.getApplication(applicationId))).data, created.data);
  const updated = await ok<Application>(twoFA.updateApplication(applicationId, { name: "login v2" }));
  assert.deepEqual(updated.data, { ...created.data, name: "login v2" });

  const template = await ok<Template>(
    twoFA.createMessageTemplate(applicationId, { messageText: "Code: {{pin}}", pinType: "NUMERIC" }),
  );
  const { messageId } = template.data;
  assert.equal(template.data.applicationId, applicationId);
  assert.equal(template.data.pinLength, 4, "the default pinLength");
  const templates = await ok<Template[]>(twoFA.getMessageTemplates(applicationId));
  assert.deepEqual(
    templates.data.map((t) => t.messageId),
    [messageId],
  );
  assert.deepEqual(
    (await ok<Template>(twoFA.getMessageTemplate(applicationId, messageId))).data,
    template.data,
  );
  const changed = await ok<Template>(
    twoFA.updateMessageTemplate(applicationId, messageId, { messageText: "Your code: {{pin}}" }),
  );
  assert.deepEqual(changed.data, { ...template.data, messageText: "Your code: {{pin}}" });
}

/** Send over SMS with the SDK's defaults, verify (wrong, then right) and read the verification status. */
async function sendSmsAndVerify(twoFA: TwoFA): Promise<void> {
  const to = newNumber();
  const sent = await ok<{ pinId: string; to: string; ncStatus?: string; smsStatus: string }>(
    twoFA.sendPINCodeSMS({ applicationId: ids.applicationId, messageId: ids.messageId, to }),
  );
  // What the SDK sends when ncNeeded is left out: the provider's default (Number Lookup) applies.
  assert.equal(sent.sent, "/2fa/2/pin/?ncNeeded=undefined");
  assert.deepEqual(
    { to: sent.data.to, ncStatus: sent.data.ncStatus, smsStatus: sent.data.smsStatus },
    { to, ncStatus: "NC_DESTINATION_REACHABLE", smsStatus: "MESSAGE_SENT" },
  );

  const captured = await capturedPin(service, USERNAME, sent.data.pinId);
  assert.equal(captured.channel, "SMS");
  assert.equal(captured.text, `Your login code is ${captured.pin}`);

  const wrong = await ok<{ verified: boolean; pinError: string; attemptsRemaining: number }>(
    twoFA.verifyPhoneNumber(sent.data.pinId, { pin: wrongPin(captured.pin) }),
  );
  assert.deepEqual(
    {
      verified: wrong.data.verified,
      pinError: wrong.data.pinError,
      attemptsRemaining: wrong.data.attemptsRemaining,
    },
    { verified: false, pinError: "WRONG_PIN", attemptsRemaining: 9 },
  );
  const verified = await ok<{ pinId: string; msisdn: string; verified: boolean }>(
    twoFA.verifyPhoneNumber(sent.data.pinId, { pin: captured.pin }),
  );
  assert.equal(verified.sent, `/2fa/2/pin/${sent.data.pinId}/verify`);
  assert.deepEqual(
    { pinId: verified.data.pinId, msisdn: verified.data.msisdn, verified: verified.data.verified },
    { pinId: sent.data.pinId, msisdn: to, verified: true },
  );

  const status = await ok<{ verifications: { msisdn: string; verified: boolean; sentAt: number }[] }>(
    twoFA.getVerificationStatus(ids.applicationId, { msisdn: to }),
  );
  assert.equal(status.sent, `/2fa/2/applications/${ids.applicationId}/verifications/?msisdn=${to}`);
  assert.deepEqual(
    status.data.verifications.map(({ msisdn, verified }) => ({ msisdn, verified })),
    [{ msisdn: to, verified: true }],
  );
}

/** Send over voice, resend over SMS and over voice (default bodies): one PIN, three captured messages. */
async function sendVoiceAndResend(twoFA: TwoFA): Promise<void> {
  const to = newNumber();
  const sent = await ok<{ pinId: string; to: string; callStatus: string }>(
    twoFA.sendPINCodeVoice({ applicationId: ids.applicationId, messageId: ids.messageId, to }),
  );
  assert.equal(sent.sent, "/2fa/2/pin/voice");
  assert.deepEqual(sent.data, { pinId: sent.data.pinId, to, callStatus: "PENDING_ACCEPTED" });
  const { pinId } = sent.data;

  const resentSms = await ok<{ pinId: string; to: string; smsStatus: string }>(twoFA.resendPINCodeSMS(pinId));
  assert.equal(resentSms.sent, `/2fa/2/pin/${pinId}/resend`);
  assert.deepEqual(resentSms.data, { pinId, to, smsStatus: "MESSAGE_SENT" });
  const resentVoice = await ok<{ pinId: string; to: string; callStatus: string }>(
    twoFA.resendPINCodeVoice(pinId),
  );
  assert.equal(resentVoice.sent, `/2fa/2/pin/${pinId}/resend/voice`);
  assert.deepEqual(resentVoice.data, { pinId, to, callStatus: "PENDING_ACCEPTED" });

  const captured: CapturedPin[] = (await inbox(service, USERNAME)).filter((pin) => pin.pinId === pinId);
  assert.deepEqual(captured.map((pin) => pin.channel).sort(), ["SMS", "VOICE", "VOICE"]);
  assert.equal(new Set(captured.map((pin) => pin.pin)).size, 1, "a resend sends the same PIN");
  const verified = await ok<{ verified: boolean }>(
    twoFA.verifyPhoneNumber(pinId, { pin: (captured[0] as CapturedPin).pin }),
  );
  assert.equal(verified.data.verified, true);
}

const clients: [string, () => TwoFA][] = [
  ["an App key with TFA permission (AuthType.ApiKey)", () => withApiKey(tfaKey)],
  ["an App key with ALL permission (AuthType.ApiKey)", () => withApiKey(allKey)],
  ["the account's credentials (AuthType.Basic)", withBasic],
  ["an IBSSO session (AuthType.IBSSO)", withIbsso],
];

for (const [who, client] of clients) {
  describe(`the SDK's 2FA methods with ${who}`, () => {
    if (!who.includes("TFA")) {
      test("applications and templates: create, list, get, update", () =>
        manageApplicationAndTemplate(client()));
    }
    test("send a PIN over SMS (default ncNeeded), verify it, and read the verification status", () =>
      sendSmsAndVerify(client()));
    test("send a PIN over voice, resend it over SMS and voice", () => sendVoiceAndResend(client()));
  });
}

test("a TFA key is refused every application and template method with 403", async () => {
  const twoFA = withApiKey(tfaKey);
  const { applicationId, messageId } = ids;
  for (const call of [
    twoFA.getApplications(),
    twoFA.createApplication({ name: "nope" }),
    twoFA.getApplication(applicationId),
    twoFA.updateApplication(applicationId, { name: "nope" }),
    twoFA.getMessageTemplates(applicationId),
    twoFA.createMessageTemplate(applicationId, { messageText: "{{pin}}", pinType: "NUMERIC" }),
    twoFA.getMessageTemplate(applicationId, messageId),
    twoFA.updateMessageTemplate(applicationId, messageId, { messageText: "{{pin}}" }),
  ]) {
    const answer = await sdkCall<{ requestError: { serviceException: { messageId: string } } }>(call);
    assert.equal(answer.status, 403, answer.sent);
    assert.equal(answer.data.requestError.serviceException.messageId, "FORBIDDEN");
  }
});

test("the optional arguments still work: ncNeeded false leaves ncStatus out, verified filters", async () => {
  const twoFA = withApiKey(tfaKey);
  const to = newNumber();
  const sent = await ok<{ pinId: string; ncStatus?: string }>(
    twoFA.sendPINCodeSMS({ applicationId: ids.applicationId, messageId: ids.messageId, to }, false),
  );
  assert.equal(sent.sent, "/2fa/2/pin/?ncNeeded=false");
  assert.equal(sent.data.ncStatus, undefined);
  const unverified = await ok<{ verifications: unknown[] }>(
    twoFA.getVerificationStatus(ids.applicationId, { msisdn: to, verified: true }),
  );
  assert.deepEqual(unverified.data.verifications, []);
});

test("the SDK's IBSSO login and logout: the token works until destroy, then every call is a 401", async () => {
  const created = await ok<{ token: string }>(sessions().create());
  assert.equal(created.sent, "/auth/1/session");
  const { token } = created.data;
  const twoFA = new Infobip({ baseUrl: service.url, ibssoToken: token, authType: AuthType.IBSSO }).service
    .twoFA;
  await ok(twoFA.getApplications());
  const destroyed = await sdkCall(sessions().destroy(token));
  assert.equal(destroyed.status, 204);
  const refused = await sdkCall<{ requestError: { serviceException: { messageId: string } } }>(
    twoFA.getApplications(),
  );
  assert.equal(refused.status, 401);
  assert.equal(refused.data.requestError.serviceException.messageId, "UNAUTHORIZED");
});
