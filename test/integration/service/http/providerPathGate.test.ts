import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ApiResponse } from "../../../harness/keyServiceProcess.ts";
import {
  type ApiKey,
  assertApiError,
  assertOk,
  keyPath,
  type Service,
  startService,
} from "../serviceFixture.ts";

/**
 * A provider path this service does not simulate, or a method a simulated path does not take, is
 * authorized before it is routed (DESIGN.md): an app's key gets on `/sms/2/text/advanced` the very
 * answer it gets on a 2FA route an ALL key may call, and only an authorized call learns the path
 * is not simulated. Against a real serve process, through the proxy that checks every answer
 * against /openapi.json.
 */

let service: Service;
/** A carried route that an ALL key may call and a TFA key may not: the reference answer. */
const REFERENCE = "/2fa/2/applications";
const hour = 3_600_000;
const at = (time: number) => new Date(time).toISOString().replace("Z", "+0000");
const app = (key: ApiKey | string) => `App ${typeof key === "string" ? key : key.publicApiKey}`;

/** Requests to paths no route takes, as apps send them. */
const UNCARRIED = [
  {
    method: "POST",
    path: "/sms/2/text/advanced",
    body: { messages: [{ destinations: [{ to: "41793026727" }] }] },
  },
  { method: "GET", path: "/sms/1/reports?limit=10" },
  { method: "POST", path: "/whatsapp/1/message/text", body: { from: "441134960000", to: "41793026727" } },
  // A body the service never parses (email is multipart): still the key's answer, not a 415.
  {
    method: "POST",
    path: "/email/3/send",
    rawBody: '--b\r\nContent-Disposition: form-data; name="from"\r\n\r\na@example.com\r\n--b--\r\n',
    headers: { "content-type": "multipart/form-data; boundary=b" },
  },
  // A method a simulated path does not take.
  { method: "PATCH", path: "/2fa/2/applications", body: { name: "x" } },
  // Paths the router itself refuses: a segment too long for any id, a segment not percent-decodable.
  { method: "GET", path: `/2fa/2/applications/${"A".repeat(600)}` },
  { method: "GET", path: "/2fa/2/applications/%E0%A4%A" },
] as const;

type Uncarried = (typeof UNCARRIED)[number];

const callWith = (request: Uncarried, authorization: string | undefined, localAddress?: string) =>
  service.call({
    ...request,
    ...(authorization && { authorization }),
    ...(localAddress && { localAddress }),
  });

/** The same refusal: status, messageId and text. */
function assertSameRefusal(actual: ApiResponse, reference: ApiResponse, where: string) {
  assert.ok(
    reference.status === 401 || reference.status === 403,
    `reference ${reference.status}: ${reference.text}`,
  );
  assert.equal(actual.status, reference.status, `${where}: ${actual.text}`);
  assert.deepEqual(actual.json, reference.json, where);
}

async function assertRefusedEverywhereAsOnReference(
  authorization: string | undefined,
  localAddress?: string,
) {
  const reference = await service.call({
    path: REFERENCE,
    ...(authorization && { authorization }),
    ...(localAddress && { localAddress }),
  });
  for (const request of UNCARRIED) {
    assertSameRefusal(
      await callWith(request, authorization, localAddress),
      reference,
      `${request.method} ${request.path.slice(0, 60)}`,
    );
  }
}

async function update(key: ApiKey, body: unknown) {
  assertOk(
    await service.call({ method: "PUT", path: keyPath(key.key), authorization: service.auth("owner"), body }),
  );
}

before(async () => {
  service = await startService([{ username: "owner", password: "owner-password-1" }]);
});
after(() => service.close());

describe("a refused caller gets the same refusal on a path the service does not simulate", () => {
  test("without credentials, or with a malformed Authorization header", async () => {
    await assertRefusedEverywhereAsOnReference(undefined);
    await assertRefusedEverywhereAsOnReference("Bearer abc");
  });

  test("with a made-up API key, or wrong Basic credentials", async () => {
    await assertRefusedEverywhereAsOnReference(app("0".repeat(32)));
    await assertRefusedEverywhereAsOnReference(
      `Basic ${Buffer.from("owner:wrong-password").toString("base64")}`,
    );
  });

  test("with a disabled key, on the very next request", async () => {
    const key = await service.createKey("owner", { name: "disabled" });
    await update(key, { enabled: false });
    await assertRefusedEverywhereAsOnReference(app(key));
  });

  test("with a key not valid yet, or expired", async () => {
    const future = await service.createKey("owner", { name: "future", validFrom: at(Date.now() + hour) });
    await assertRefusedEverywhereAsOnReference(app(future));
    const past = await service.createKey("owner", {
      name: "past",
      validFrom: at(Date.now() - 2 * hour),
      validTo: at(Date.now() - hour),
    });
    await assertRefusedEverywhereAsOnReference(app(past));
  });

  test("from an address outside the key's allowedIPs", async () => {
    const key = await service.createKey("owner", { name: "one-address", allowedIPs: ["127.0.0.2"] });
    await assertRefusedEverywhereAsOnReference(app(key), "127.0.0.3");
  });

  test("with a TFA key: 403, for a TFA key may call only the seven 2FA client methods", async () => {
    const key = await service.createKey("owner", { name: "tfa", permissions: ["TFA"] });
    await assertRefusedEverywhereAsOnReference(app(key));
  });
});

describe("an authorized caller learns that the path is not simulated", () => {
  const expected: Record<string, number> = {
    PATCH: 405,
  };
  const statusOf = (request: Uncarried) =>
    request.path.includes("%E0") ? 400 : (expected[request.method] ?? 404);

  test("an ALL key, inside its window and allowed address: 404 (405 for a method the path does not take)", async () => {
    const key = await service.createKey("owner", { name: "all", allowedIPs: ["127.0.0.2"] });
    for (const request of UNCARRIED) {
      const res = await callWith(request, app(key), "127.0.0.2");
      assert.equal(
        res.status,
        statusOf(request),
        `${request.method} ${request.path.slice(0, 60)}: ${res.text}`,
      );
    }
    const res = await callWith(UNCARRIED[0], app(key), "127.0.0.2");
    assert.match(assertApiError(res, 404, "NOT_FOUND").text, /no such route: POST \/sms\/2\/text\/advanced/);
  });

  test("the account's Basic credentials: 404 (405 for a method the path does not take)", async () => {
    for (const request of UNCARRIED) {
      const res = await callWith(request, service.auth("owner"));
      assert.equal(
        res.status,
        statusOf(request),
        `${request.method} ${request.path.slice(0, 60)}: ${res.text}`,
      );
    }
  });
});

test("a call to a path not simulated counts as the key's use, and a refused one as its refusal", async () => {
  const key = await service.createKey("owner", { name: "counted", allowedIPs: ["127.0.0.2"] });
  assertApiError(await callWith(UNCARRIED[0], app(key), "127.0.0.2"), 404, "NOT_FOUND");
  assertApiError(await callWith(UNCARRIED[1], app(key), "127.0.0.2"), 404, "NOT_FOUND");
  assertApiError(await callWith(UNCARRIED[0], app(key), "127.0.0.3"), 403, "FORBIDDEN");
  const usage = assertOk<{
    usage: { total: { allowed: number; refused: Record<string, number> }; lastUsedFrom: string };
  }>(
    await service.call({ path: `${keyPath(key.key)}?include=usage`, authorization: service.auth("owner") }),
  ).usage;
  assert.equal(usage.total.allowed, 2);
  assert.equal(usage.total.refused["address-not-allowed"], 1);
  assert.equal(usage.lastUsedFrom, "127.0.0.2");
});

test("the service's own paths keep their rules: an unknown one is 404 without credentials, a method one does not take 405", async () => {
  for (const path of ["/settings/1/nothing", "/local/1/nothing", "/local/9/health"]) {
    assertApiError(await service.call({ path }), 404, "NOT_FOUND");
  }
  // One trailing slash names the same path: a method /openapi.json does not take is its 405.
  assertApiError(
    await service.call({ method: "POST", path: "/openapi.json/", body: {} }),
    405,
    "METHOD_NOT_ALLOWED",
  );
});
