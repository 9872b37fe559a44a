import assert from "node:assert/strict";
import { MAX_STREAMS_PER_ACCOUNT } from "../../../../electron/service/http/routes/localPinRoutes.ts";
import { pointerOf } from "../../../harness/openApiConformance.ts";
import { openEventStream } from "../tfa/eventStreamClient.ts";
import { UNKNOWN_ID } from "./contractWorld.ts";
import type { Prober } from "./prober.ts";

/** The 2FA simulator: applications, templates, PINs and their limits, and the PIN inbox with its stream. */

const APPS = "/2fa/2/applications";
type StreamOperation = {
  responses: { "200": { content: { "text/event-stream": { "x-events": Record<string, object> } } } };
};
export const NUMBER = "41793026727";
const LIMITED_NUMBER = "41793026728";

export async function probeTfaApplications(prober: Prober): Promise<void> {
  const { world } = prober;
  await prober.ok({ path: APPS });
  await prober.ok({ path: APPS, authorization: world.allKey });
  await prober.ok({
    method: "POST",
    path: APPS,
    body: { name: "contract", configuration: { pinAttempts: 3 } },
  });
  await prober.probe(400, { method: "POST", path: APPS, body: { name: "" } });
  await prober.probe(403, { method: "POST", path: APPS, body: { name: "x" }, authorization: world.tfaKey });

  const app = `${APPS}/${world.appId}`;
  await prober.ok({ path: app });
  await prober.probe(404, { path: `${APPS}/${UNKNOWN_ID}` });
  await prober.ok({ method: "PUT", path: app, body: { name: "open" } });
  await prober.probe(400, { method: "PUT", path: app, body: { name: "" } });
  await prober.probe(404, { method: "PUT", path: `${APPS}/${UNKNOWN_ID}`, body: { name: "x" } });

  const templates = `${app}/messages`;
  await prober.ok({ path: templates });
  await prober.probe(404, { path: `${APPS}/${UNKNOWN_ID}/messages` });
  await prober.ok({
    method: "POST",
    path: templates,
    body: { messageText: "{{pin}}", pinType: "HEX", regional: { indiaDlt: { principalEntityId: "P" } } },
  });
  await prober.probe(400, { method: "POST", path: templates, body: { messageText: "no placeholder" } });
  await prober.probe(404, {
    method: "POST",
    path: `${APPS}/${UNKNOWN_ID}/messages`,
    body: { messageText: "{{pin}}", pinType: "NUMERIC" },
  });

  const template = `${templates}/${world.msgId}`;
  await prober.ok({ path: template });
  await prober.probe(404, { path: `${templates}/${UNKNOWN_ID}` });
  await prober.ok({ method: "PUT", path: template, body: { pinLength: 6 } });
  await prober.probe(400, { method: "PUT", path: template, body: { pinLength: 0 } });
  await prober.probe(404, { method: "PUT", path: `${templates}/${UNKNOWN_ID}`, body: { pinLength: 6 } });
}

/** Sends, resends, verifies and reads PINs; returns the id of a PIN sent over SMS. */
export async function probeTfaPins(prober: Prober): Promise<string> {
  const { world } = prober;
  const ids = { applicationId: world.appId, messageId: world.msgId };
  const limited = { applicationId: world.limitedAppId, messageId: world.limitedMsgId };
  const disabled = { applicationId: world.disabledAppId, messageId: world.disabledMsgId };
  const unknown = { applicationId: UNKNOWN_ID, messageId: world.msgId };
  const tfa = world.tfaKey;

  for (const path of ["/2fa/2/pin", "/2fa/2/pin?ncNeeded=false", "/2fa/2/pin/voice"]) {
    await prober.ok({ method: "POST", path, body: { ...ids, to: NUMBER }, authorization: tfa });
    await prober.probe(400, { method: "POST", path, body: { ...ids, to: "not a number" } });
    await prober.probe(403, { method: "POST", path, body: { ...disabled, to: NUMBER } });
    await prober.probe(404, { method: "POST", path, body: { ...unknown, to: NUMBER } });
  }
  const sms = await prober.ok<{ pinId: string }>({
    method: "POST",
    path: "/2fa/2/pin",
    body: { ...ids, to: "41793026729" },
  });
  const voice = await prober.ok<{ pinId: string }>({
    method: "POST",
    path: "/2fa/2/pin/voice",
    body: { ...ids, to: "41793026730" },
  });
  const once = await prober.ok<{ pinId: string }>({
    method: "POST",
    path: "/2fa/2/pin",
    body: { ...limited, to: LIMITED_NUMBER },
  });
  // The limited application allows one PIN per number a day: every further send and resend is a 429.
  await prober.probe(429, { method: "POST", path: "/2fa/2/pin", body: { ...limited, to: LIMITED_NUMBER } });
  await prober.probe(429, {
    method: "POST",
    path: "/2fa/2/pin/voice",
    body: { ...limited, to: LIMITED_NUMBER },
  });

  for (const [resend, pinId] of [
    ["resend", sms.pinId],
    ["resend/voice", voice.pinId],
  ] as const) {
    await prober.ok({ method: "POST", path: `/2fa/2/pin/${pinId}/${resend}`, authorization: tfa });
    await prober.ok({ method: "POST", path: `/2fa/2/pin/${pinId}/${resend}`, body: {} });
    await prober.probe(400, {
      method: "POST",
      path: `/2fa/2/pin/${pinId}/${resend}`,
      body: { colour: "red" },
    });
    await prober.probe(404, { method: "POST", path: `/2fa/2/pin/${UNKNOWN_ID}/${resend}` });
    await prober.probe(429, { method: "POST", path: `/2fa/2/pin/${once.pinId}/${resend}` });
    await prober.probe(403, {
      method: "POST",
      path: `/2fa/2/pin/${pinId}/${resend}`,
      authorization: world.disabledKey,
    });
  }

  const verify = `/2fa/2/pin/${sms.pinId}/verify`;
  await prober.ok({ method: "POST", path: verify, body: { pin: "0000" }, authorization: tfa });
  // The default verifyPinLimit is one attempt per PIN every 3 s.
  await prober.probe(429, { method: "POST", path: verify, body: { pin: "0000" } });
  await prober.probe(400, { method: "POST", path: verify, body: {} });
  await prober.probe(404, { method: "POST", path: `/2fa/2/pin/${UNKNOWN_ID}/verify`, body: { pin: "0000" } });

  await prober.ok({ path: `/2fa/2/pin/${sms.pinId}/status`, authorization: tfa });
  await prober.probe(404, { path: `/2fa/2/pin/${UNKNOWN_ID}/status` });

  const verifications = `${APPS}/${world.appId}/verifications`;
  await prober.ok({ path: `${verifications}?msisdn=${NUMBER}`, authorization: tfa });
  await prober.ok({ path: `${verifications}?msisdn=${NUMBER}&verified=false&sent=true` });
  await prober.probe(400, { path: verifications });
  await prober.probe(404, { path: `${APPS}/${UNKNOWN_ID}/verifications?msisdn=${NUMBER}` });
  return sms.pinId;
}

/** The inbox as a list and as a stream, whose events must match the schemas the document names for them. */
export async function probePinInbox(prober: Prober): Promise<void> {
  const { world, conformance } = prober;
  await prober.ok({ path: "/local/1/pins" });
  await prober.ok({ path: `/local/1/pins?to=${NUMBER}&applicationId=${world.appId}&limit=5` });
  await prober.probe(400, { path: "/local/1/pins?limit=0" });
  await prober.probe(400, { path: "/local/1/pins/stream?colour=red" });

  const path = "/local/1/pins/stream";
  const stream = await openEventStream(world.service.url, path, prober.owner);
  try {
    const resolution = conformance.assertConforms({
      method: "GET",
      path,
      status: stream.status,
      headers: stream.headers,
      text: "",
    });
    prober.coverage.record(resolution);
    assert.equal(stream.status, 200);
    const ids = { applicationId: world.appId, messageId: world.msgId };
    const sent = await prober.ok<{ pinId: string }>({
      method: "POST",
      path: "/2fa/2/pin",
      body: { ...ids, to: "41793026731" },
    });
    await prober.ok({ method: "POST", path: `/2fa/2/pin/${sent.pinId}/verify`, body: { pin: "0000" } });
    const stream200 = (prober.doc.paths[path]?.get as StreamOperation | undefined)?.responses["200"];
    const events = Object.keys(stream200?.content["text/event-stream"]["x-events"] ?? {});
    assert.deepEqual(events.sort(), ["pin", "pin-state"], "the documented events of the stream");
    for (const name of events) {
      const event = await stream.waitForEvent((each) => each.event === name);
      const validate = conformance.schema(
        pointerOf([
          "paths",
          path,
          "get",
          "responses",
          "200",
          "content",
          "text/event-stream",
          "x-events",
          name,
        ]),
      );
      assert.ok(validate(JSON.parse(event.data)), `${name} event: ${JSON.stringify(validate.errors)}`);
    }
  } finally {
    stream.close();
  }
  await probeStreamLimit(prober);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The stream's 429 for an account that holds its limit of open streams. The server frees a place
 * a moment after a client leaves, so opening and the final check wait for that (up to 5 s).
 */
async function probeStreamLimit(prober: Prober): Promise<void> {
  const path = "/local/1/pins/stream";
  const open: Array<Awaited<ReturnType<typeof openEventStream>>> = [];
  try {
    const deadline = Date.now() + 5000;
    while (open.length < MAX_STREAMS_PER_ACCOUNT) {
      const stream = await openEventStream(prober.world.service.url, path, prober.owner);
      if (stream.status === 200) open.push(stream);
      else if (stream.status === 429 && Date.now() < deadline) await sleep(50);
      else assert.fail(`stream ${open.length + 1} of ${MAX_STREAMS_PER_ACCOUNT}: ${stream.status}`);
    }
    await prober.probe(429, { path });
  } finally {
    for (const stream of open) stream.close();
  }
  // The places are given back: later probes (HEAD wherever GET is) expect the stream's 200.
  const deadline = Date.now() + 5000;
  while ((await prober.probe([200, 429], { method: "HEAD", path })).status === 429) {
    assert.ok(Date.now() < deadline, "closed streams did not give their places back");
    await sleep(50);
  }
}
