import { after, before, test } from "node:test";
import type { ApiResponse } from "../../../harness/keyServiceProcess.ts";
import { type OpenApiDocument, openApiConformance } from "../../../harness/openApiConformance.ts";
import { assertOk, type Service, startService } from "../serviceFixture.ts";
import { capturedPin, type TfaCaller, tfaCaller } from "./tfaFixture.ts";

/** Real answers of the 2FA simulator and the PIN inbox match what /openapi.json declares for them. */

let service: Service;
let owner: TfaCaller;
let conformance: ReturnType<typeof openApiConformance>;

before(async () => {
  service = await startService([{ username: "owner", password: "owner-secret-1" }]);
  owner = tfaCaller(service, service.auth("owner"));
  conformance = openApiConformance(assertOk<OpenApiDocument>(await service.call({ path: "/openapi.json" })));
});
after(async () => {
  await service?.close();
});

function conforms(method: string, path: string, res: ApiResponse): void {
  conformance.assertResponse(method, path, res);
}

const APPS = "/2fa/2/applications";
const APP = "/2fa/2/applications/{appId}";
const TEMPLATES = "/2fa/2/applications/{appId}/messages";
const TEMPLATE = "/2fa/2/applications/{appId}/messages/{msgId}";

test("applications and templates, full and minimal, match their schemas", async () => {
  const created = await owner.call("POST", APPS, { name: "doc", configuration: { pinAttempts: 4 } });
  conforms("POST", APPS, created);
  const appId = (created.json as { applicationId: string }).applicationId;
  conforms("GET", APPS, await owner.call("GET", APPS));
  conforms("GET", APP, await owner.call("GET", `${APPS}/${appId}`));
  conforms("PUT", APP, await owner.call("PUT", `${APPS}/${appId}`, { enabled: true }));
  const full = await owner.call("POST", `${APPS}/${appId}/messages`, {
    messageText: "{{pin}}",
    pinType: "HEX",
    senderId: "Keydesk",
    repeatDTMF: "1#",
    voiceName: "Joanna",
    regional: { indiaDlt: { principalEntityId: "P" } },
  });
  conforms("POST", TEMPLATES, full);
  const minimal = await owner.call("POST", `${APPS}/${appId}/messages`, {
    messageText: "{{pin}}",
    pinType: "NUMERIC",
  });
  conforms("POST", TEMPLATES, minimal);
  const msgId = (minimal.json as { messageId: string }).messageId;
  conforms("GET", TEMPLATES, await owner.call("GET", `${APPS}/${appId}/messages`));
  conforms("GET", TEMPLATE, await owner.call("GET", `${APPS}/${appId}/messages/${msgId}`));
  conforms("PUT", TEMPLATE, await owner.call("PUT", `${APPS}/${appId}/messages/${msgId}`, { pinLength: 5 }));
});

test("sends, resends, verification, statuses and the inbox match their schemas", async () => {
  const ids = await owner.setUp({ verifyPinLimit: "10/1s" });
  const sms = await owner.send({ ...ids, to: "41793026727" });
  conforms("POST", "/2fa/2/pin", sms);
  conforms("POST", "/2fa/2/pin", await owner.send({ ...ids, to: "41793026727" }, "?ncNeeded=false"));
  conforms(
    "POST",
    "/2fa/2/pin/voice",
    await owner.call("POST", "/2fa/2/pin/voice", { ...ids, to: "447700900001" }),
  );
  const pinId = (sms.json as { pinId: string }).pinId;
  conforms("POST", "/2fa/2/pin/{pinId}/resend", await owner.call("POST", `/2fa/2/pin/${pinId}/resend`));
  conforms(
    "POST",
    "/2fa/2/pin/{pinId}/resend/voice",
    await owner.call("POST", `/2fa/2/pin/${pinId}/resend/voice`),
  );
  conforms("POST", "/2fa/2/pin/{pinId}/verify", await owner.verify(pinId, "nope"));
  const { pin } = await capturedPin(service, "owner", pinId);
  conforms("POST", "/2fa/2/pin/{pinId}/verify", await owner.verify(pinId, pin));
  conforms("GET", "/2fa/2/pin/{pinId}/status", await owner.status(pinId));
  const verifications = await owner.call(
    "GET",
    `${APPS}/${ids.applicationId}/verifications?msisdn=41793026727`,
  );
  conforms("GET", "/2fa/2/applications/{appId}/verifications", verifications);
  conforms(
    "GET",
    "/local/1/pins",
    await service.call({ path: "/local/1/pins", authorization: service.auth("owner") }),
  );
});

test("the simulator's error answers are documented and match the ApiError schema", async () => {
  const ids = await owner.setUp({ sendPinPerPhoneNumberLimit: "1/1d" });
  await owner.send({ ...ids, to: "41790000000" });
  conforms("POST", "/2fa/2/pin", await owner.send({ ...ids, to: "41790000000" }));
  conforms("POST", "/2fa/2/pin", await owner.send({ ...ids, to: "x" }));
  conforms("POST", APPS, await owner.call("POST", APPS, { name: "" }));
  conforms("GET", APP, await owner.call("GET", `${APPS}/0123456789ABCDEF0123456789ABCDEF`));
  conforms("GET", "/2fa/2/pin/{pinId}/status", await service.call({ path: "/2fa/2/pin/X/status" }));
  await owner.call("PUT", `${APPS}/${ids.applicationId}`, { enabled: false });
  conforms(
    "POST",
    "/2fa/2/pin/voice",
    await owner.call("POST", "/2fa/2/pin/voice", { ...ids, to: "41790000001" }),
  );
  conforms(
    "GET",
    "/local/1/pins",
    await service.call({ path: "/local/1/pins?limit=0", authorization: service.auth("owner") }),
  );
});
