import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { assertApiError, assertValidationError, type Service, startService } from "../serviceFixture.ts";
import { allKeyAuthorization, type CapturedPin, inbox, type TfaCaller, tfaCaller } from "./tfaFixture.ts";

/** GET /local/1/pins: the PIN inbox of an account and of the accounts it manages. */

let service: Service;
const callers: Record<string, TfaCaller> = {};
const apps: Record<string, { applicationId: string; messageId: string }> = {};
/** pinIds sent by each account, in sending order. */
const sent: Record<string, string[]> = { owner: [], child: [], grandchild: [], stranger: [] };

before(async () => {
  service = await startService([
    { username: "owner", password: "owner-secret-1" },
    { username: "child", password: "child-secret-1", parent: "owner" },
    { username: "grandchild", password: "grandchild-secret-1", parent: "child" },
    { username: "stranger", password: "stranger-secret-1" },
    { username: "busy", password: "busy-secret-12" },
  ]);
  for (const username of Object.keys(sent)) {
    // API keys act in their own account, like Basic credentials.
    callers[username] = tfaCaller(service, await allKeyAuthorization(service, username));
    apps[username] = await (callers[username] as TfaCaller).setUp({ sendPinPerPhoneNumberLimit: "100/1d" });
  }
  const order = [
    ["owner", "41791110000"],
    ["child", "41792220000"],
    ["stranger", "41791110000"],
    ["grandchild", "41792220000"],
    ["owner", "41791110000"],
    ["child", "41791110000"],
  ] as const;
  for (const [username, to] of order) {
    const { pinId } = await (callers[username] as TfaCaller).sendSms({ ...apps[username], to });
    sent[username]?.push(pinId);
  }
});
after(async () => {
  await service?.close();
});

const pinIds = (pins: CapturedPin[]) => pins.map((pin) => pin.pinId);

describe("scope", () => {
  test("an account sees its own messages and its sub-accounts' at any depth, newest first", async () => {
    const pins = await inbox(service, "owner");
    const expected = [
      sent.child?.[1],
      sent.owner?.[1],
      sent.grandchild?.[0],
      sent.child?.[0],
      sent.owner?.[0],
    ];
    assert.deepEqual(pinIds(pins), expected);
    for (const pin of pins) {
      assert.deepEqual(Object.keys(pin), [
        "pinId",
        "accountKey",
        "applicationId",
        "applicationName",
        "messageId",
        "to",
        "channel",
        "pin",
        "text",
        "sentAt",
        "expiresAt",
        "attemptsRemaining",
        "verified",
        "delivered",
        "status",
        ...(pin.channel === "SMS" ? ["ncStatus"] : []),
      ]);
    }
    const sentAts = pins.map((pin) => pin.sentAt);
    assert.deepEqual([...sentAts].sort().reverse(), sentAts);
  });

  test("each message names the account it was sent for (a stream event equals its entry: see pinStream)", async () => {
    const senderOf = new Map(
      Object.entries(sent).flatMap(([username, ids]) => ids.map((pinId) => [pinId, username] as const)),
    );
    const pins = await inbox(service, "owner");
    assert.deepEqual(
      pins.map((pin) => pin.accountKey),
      pins.map((pin) => service.accountKeys[senderOf.get(pin.pinId) as string]),
    );
    assert.deepEqual(new Set(pins.map((pin) => pin.accountKey)).size, 3, "owner, child and grandchild");
  });

  test("a sub-account sees its own and its sub-accounts' messages, never its parent's or a stranger's", async () => {
    assert.deepEqual(pinIds(await inbox(service, "child")), [
      sent.child?.[1],
      sent.grandchild?.[0],
      sent.child?.[0],
    ]);
    assert.deepEqual(pinIds(await inbox(service, "grandchild")), [sent.grandchild?.[0]]);
    assert.deepEqual(pinIds(await inbox(service, "stranger")), [sent.stranger?.[0]]);
  });
});

describe("filters", () => {
  test("?to= narrows to one number, written with or without +", async () => {
    const pins = await inbox(service, "owner", "?to=41792220000");
    assert.deepEqual(pinIds(pins), [sent.grandchild?.[0], sent.child?.[0]]);
    assert.deepEqual(await inbox(service, "owner", "?to=%2B41792220000"), pins);
    assert.deepEqual(await inbox(service, "owner", "?to=41793330000"), []);
  });

  test("?to= is a search: a part of a number, or a number written with spaces and +, finds it", async () => {
    const pins = await inbox(service, "owner", "?to=41792220000");
    assert.deepEqual(await inbox(service, "owner", "?to=792220"), pins);
    assert.deepEqual(await inbox(service, "owner", `?to=${encodeURIComponent("+41 79 222 00 00")}`), pins);
    assert.deepEqual(await inbox(service, "owner", `?to=${encodeURIComponent("(79) 222-00")}`), pins);
    assert.deepEqual(await inbox(service, "owner", "?to=9999999"), []);
  });

  test("each message names its application", async () => {
    const pins = (await inbox(service, "owner")) as { applicationId: string; applicationName?: string }[];
    assert.ok(pins.length > 0);
    for (const pin of pins) {
      const app = Object.values(apps).find((each) => each?.applicationId === pin.applicationId);
      assert.equal(typeof pin.applicationName, "string");
      assert.ok(app, pin.applicationId);
    }
  });

  test("?applicationId= narrows to one application; both filters combine", async () => {
    const child = apps.child?.applicationId as string;
    assert.deepEqual(pinIds(await inbox(service, "owner", `?applicationId=${child}`)), [
      sent.child?.[1],
      sent.child?.[0],
    ]);
    assert.deepEqual(pinIds(await inbox(service, "owner", `?applicationId=${child}&to=41792220000`)), [
      sent.child?.[0],
    ]);
    const strangers = apps.stranger?.applicationId as string;
    assert.deepEqual(await inbox(service, "owner", `?applicationId=${strangers}`), []);
  });

  test("?limit= keeps the newest messages", async () => {
    assert.deepEqual(pinIds(await inbox(service, "owner", "?limit=2")), [sent.child?.[1], sent.owner?.[1]]);
  });

  test("invalid or unknown query parameters are 400", async () => {
    const call = (query: string) =>
      service.call({ path: `/local/1/pins${query}`, authorization: service.auth("owner") });
    assertValidationError(await call("?to=abc"), "to");
    assertValidationError(await call("?to=41791110000&to=41792220000"), "to");
    assertValidationError(await call("?limit=0"), "limit");
    assertValidationError(await call("?limit=1001"), "limit");
    assertValidationError(await call("?colour=red"), "colour");
  });
});

describe("a busy inbox", () => {
  test("more messages than one read step: every one listed once, newest first; ?limit= the newest", async () => {
    const busy = tfaCaller(service, await allKeyAuthorization(service, "busy"));
    const app = await busy.setUp({
      sendPinPerPhoneNumberLimit: "1000/1d",
      sendPinPerApplicationLimit: "1000/1d",
    });
    const busySent: string[] = [];
    for (let index = 0; index < 300; index++) {
      busySent.push(
        (await busy.sendSms({ ...app, to: `4179333${String(index % 3).padStart(4, "0")}` })).pinId,
      );
    }
    const newestFirst = [...busySent].reverse();
    assert.deepEqual(pinIds(await inbox(service, "busy")), newestFirst);
    assert.deepEqual(pinIds(await inbox(service, "busy", "?limit=200")), newestFirst.slice(0, 200));
    assert.deepEqual(
      pinIds(await inbox(service, "busy", "?to=41793330001")),
      newestFirst.filter((_pinId, index) => (299 - index) % 3 === 1),
    );
  });
});

describe("access", () => {
  test("the inbox takes Basic credentials only: none is 401, an API key is 403", async () => {
    assertApiError(await service.call({ path: "/local/1/pins" }), 401, "UNAUTHORIZED");
    const res = await service.call({
      path: "/local/1/pins",
      authorization: callers.owner?.authorization as string,
    });
    assertApiError(res, 403, "FORBIDDEN");
  });

  test("the inbox shows the PIN state as it changes", async () => {
    const pinId = sent.stranger?.[0] as string;
    const [captured] = await inbox(service, "stranger");
    await callers.stranger?.verify(pinId, captured?.pin as string);
    const [after] = await inbox(service, "stranger");
    assert.deepEqual(after, { ...captured, verified: true });
  });
});
