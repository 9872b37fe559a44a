import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { assertOk, type Service, startService } from "../serviceFixture.ts";
import { inbox, type Json, type TfaCaller, tfaCaller } from "./tfaFixture.ts";

/**
 * The documented test numbers force the failure paths; what an app sent to them is listed in the
 * inbox as not delivered, with the status its send answered and, for an SMS, the Number Lookup
 * status that tells the two numbers apart.
 */

const NOT_REACHABLE = "447700900001";
const NOT_SENT = "447700900002";

let service: Service;
let owner: TfaCaller;
let ids: { applicationId: string; messageId: string };

before(async () => {
  service = await startService([{ username: "owner", password: "owner-secret-1" }]);
  owner = tfaCaller(service, service.auth("owner"));
  ids = await owner.setUp({ sendPinPerPhoneNumberLimit: "100/1d" });
});
after(async () => {
  await service?.close();
});

/** The inbox's delivery words for `to`, newest first. */
async function deliveries(to: string): Promise<Json[]> {
  return (await inbox(service, "owner", `?to=${to}`)).map((pin) => ({
    channel: pin.channel,
    delivered: pin.delivered,
    status: pin.status,
    ...(pin.ncStatus !== undefined && { ncStatus: pin.ncStatus }),
  }));
}

async function verifications(to: string, query = ""): Promise<Json[]> {
  const res = await owner.call(
    "GET",
    `/2fa/2/applications/${ids.applicationId}/verifications?msisdn=${to}${query}`,
  );
  return assertOk<{ verifications: Json[] }>(res).verifications;
}

describe(`${NOT_REACHABLE}: destination not reachable`, () => {
  test("SMS answers NC_DESTINATION_NOT_REACHABLE and MESSAGE_NOT_SENT; the inbox lists it as not delivered", async () => {
    const sent = await owner.sendSms({ ...ids, to: `+${NOT_REACHABLE}` }, "?ncNeeded=true");
    assert.deepEqual(sent, {
      pinId: sent.pinId,
      to: NOT_REACHABLE,
      ncStatus: "NC_DESTINATION_NOT_REACHABLE",
      smsStatus: "MESSAGE_NOT_SENT",
    });
    const without = await owner.sendSms({ ...ids, to: NOT_REACHABLE }, "?ncNeeded=false");
    assert.deepEqual(without, { pinId: without.pinId, to: NOT_REACHABLE, smsStatus: "MESSAGE_NOT_SENT" });
    const listed = await inbox(service, "owner", `?to=${NOT_REACHABLE}`);
    assert.deepEqual(
      listed.map((pin) => pin.pinId),
      [without.pinId, sent.pinId],
    );
    assert.deepEqual(await deliveries(NOT_REACHABLE), [
      {
        channel: "SMS",
        delivered: false,
        status: "MESSAGE_NOT_SENT",
        ncStatus: "NC_DESTINATION_NOT_REACHABLE",
      },
      {
        channel: "SMS",
        delivered: false,
        status: "MESSAGE_NOT_SENT",
        ncStatus: "NC_DESTINATION_NOT_REACHABLE",
      },
    ]);
  });

  test("voice answers a failed callStatus; resends fail the same way", async () => {
    const res = await owner.call("POST", "/2fa/2/pin/voice", { ...ids, to: NOT_REACHABLE });
    const sent = assertOk<Json & { pinId: string }>(res);
    assert.equal(sent.callStatus, "REJECTED_DESTINATION");
    const resent = assertOk<Json>(await owner.call("POST", `/2fa/2/pin/${sent.pinId}/resend`));
    assert.equal(resent.smsStatus, "MESSAGE_NOT_SENT");
    const voice = assertOk<Json>(await owner.call("POST", `/2fa/2/pin/${sent.pinId}/resend/voice`));
    assert.equal(voice.callStatus, "REJECTED_DESTINATION");
    assert.deepEqual((await deliveries(NOT_REACHABLE)).slice(0, 3), [
      { channel: "VOICE", delivered: false, status: "REJECTED_DESTINATION" },
      {
        channel: "SMS",
        delivered: false,
        status: "MESSAGE_NOT_SENT",
        ncStatus: "NC_DESTINATION_NOT_REACHABLE",
      },
      { channel: "VOICE", delivered: false, status: "REJECTED_DESTINATION" },
    ]);
  });
});

describe(`${NOT_SENT}: reachable, but the message is not sent`, () => {
  test("SMS answers NC_DESTINATION_REACHABLE and MESSAGE_NOT_SENT; voice a failed callStatus; both listed as not delivered", async () => {
    const sent = await owner.sendSms({ ...ids, to: NOT_SENT });
    assert.equal(sent.ncStatus, "NC_DESTINATION_REACHABLE");
    assert.equal(sent.smsStatus, "MESSAGE_NOT_SENT");
    const voice = assertOk<Json>(await owner.call("POST", "/2fa/2/pin/voice", { ...ids, to: NOT_SENT }));
    assert.equal(voice.callStatus, "UNDELIVERABLE_NOT_DELIVERED");
    assert.deepEqual(await deliveries(NOT_SENT), [
      { channel: "VOICE", delivered: false, status: "UNDELIVERABLE_NOT_DELIVERED" },
      { channel: "SMS", delivered: false, status: "MESSAGE_NOT_SENT", ncStatus: "NC_DESTINATION_REACHABLE" },
    ]);
  });

  test("the PIN exists (status answers) but verification status reports it as not sent", async () => {
    const sent = await owner.sendSms({ ...ids, to: NOT_SENT });
    const status = assertOk<Json>(await owner.status(sent.pinId));
    assert.deepEqual(status, { pinId: sent.pinId, msisdn: NOT_SENT, verified: false, attemptsRemaining: 10 });
    assert.equal((await verifications(NOT_SENT, "&sent=true")).length, 0);
    assert.ok((await verifications(NOT_SENT, "&sent=false")).length >= 1);
  });
});

test("a neighbouring number of the same reserved range is delivered normally", async () => {
  const sent = await owner.sendSms({ ...ids, to: "447700900003" });
  assert.equal(sent.smsStatus, "MESSAGE_SENT");
  assert.deepEqual(await deliveries("447700900003"), [
    { channel: "SMS", delivered: true, status: "MESSAGE_SENT", ncStatus: "NC_DESTINATION_REACHABLE" },
  ]);
});
