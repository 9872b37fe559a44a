import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type ApiResponse, request, startServe } from "../../harness/keyServiceProcess.ts";
import {
  type ApiKey,
  assertApiError,
  assertOk,
  keyPath,
  type Service,
  startService,
} from "./serviceFixture.ts";

/**
 * `Authorization: App <publicApiKey>` on the non-management routes (the 2FA simulator), checked
 * against a real serve process: each refusal names the rule that refused, and a change to a key
 * is visible on the very next request.
 */

let service: Service;
let pinStatusPath: string;
const APPLICATIONS = "/2fa/2/applications";

const app = (key: ApiKey | string) => `App ${typeof key === "string" ? key : key.publicApiKey}`;

async function pinStatus(key: ApiKey, localAddress?: string): Promise<ApiResponse> {
  return service.call({
    path: pinStatusPath,
    authorization: app(key),
    ...(localAddress && { localAddress }),
  });
}

async function update(key: ApiKey, body: unknown) {
  return assertOk<ApiKey>(
    await service.call({ method: "PUT", path: keyPath(key.key), authorization: service.auth("owner"), body }),
  );
}

function assertRefused(res: ApiResponse, pattern: RegExp) {
  const exception = assertApiError(res, 403, "FORBIDDEN");
  assert.match(exception.text, pattern);
}

before(async () => {
  service = await startService([{ username: "owner", password: "owner-password-1" }]);
  const basic = service.auth("owner");
  const application = assertOk<{ applicationId: string }>(
    await service.call({ method: "POST", path: APPLICATIONS, authorization: basic, body: { name: "login" } }),
  );
  const template = assertOk<{ messageId: string }>(
    await service.call({
      method: "POST",
      path: `${APPLICATIONS}/${application.applicationId}/messages`,
      authorization: basic,
      body: { messageText: "Your code is {{pin}}", pinType: "NUMERIC" },
    }),
  );
  const sent = assertOk<{ pinId: string }>(
    await service.call({
      method: "POST",
      path: "/2fa/2/pin?ncNeeded=false",
      authorization: basic,
      body: { applicationId: application.applicationId, messageId: template.messageId, to: "41793026727" },
    }),
  );
  pinStatusPath = `/2fa/2/pin/${sent.pinId}/status`;
});

after(() => service.close());

describe("who may call at all", () => {
  test("no Authorization header is 401 and says what to send", async () => {
    const res = await service.call({ path: APPLICATIONS });
    assert.match(assertApiError(res, 401, "UNAUTHORIZED").text, /App <publicApiKey>|Basic/);
  });

  test("a malformed Authorization header is 401", async () => {
    for (const authorization of ["App", "Bearer abc", "App two words"]) {
      assertApiError(await service.call({ path: APPLICATIONS, authorization }), 401, "UNAUTHORIZED");
    }
  });

  test("an unknown API key is 401", async () => {
    const res = await service.call({ path: APPLICATIONS, authorization: app("0".repeat(32)) });
    assert.match(assertApiError(res, 401, "UNAUTHORIZED").text, /not known/);
  });

  test("the account's Basic credentials may call every non-management route", async () => {
    assertOk(await service.call({ path: APPLICATIONS, authorization: service.auth("owner") }));
    assertOk(await service.call({ path: pinStatusPath, authorization: service.auth("owner") }));
  });

  test("an ALL key may call every non-management route", async () => {
    const key = await service.createKey("owner", { name: "all", permissions: ["ALL"] });
    assertOk(await service.call({ path: APPLICATIONS, authorization: app(key) }));
    assertOk(await pinStatus(key));
  });
});

describe("TFA keys", () => {
  test("may call the client-side 2FA methods", async () => {
    const key = await service.createKey("owner", { name: "tfa", permissions: ["TFA"] });
    assertOk(await pinStatus(key));
  });

  test("are refused on every other route, with a text that says why", async () => {
    const key = await service.createKey("owner", { name: "tfa", permissions: ["TFA"] });
    assertRefused(await service.call({ path: APPLICATIONS, authorization: app(key) }), /TFA permission only/);
    assertRefused(
      await service.call({
        method: "POST",
        path: APPLICATIONS,
        authorization: app(key),
        body: { name: "x" },
      }),
      /TFA permission only/,
    );
  });

  test("a key of the 2FA key endpoint is a TFA key", async () => {
    const created = await service.call({
      method: "POST",
      path: "/2fa/2/api-key",
      authorization: service.auth("owner"),
    });
    const publicApiKey = assertOk<string>(created);
    assertOk(await service.call({ path: pinStatusPath, authorization: app(publicApiKey) }));
    assertRefused(await service.call({ path: APPLICATIONS, authorization: app(publicApiKey) }), /TFA/);
  });
});

describe("enabled", () => {
  test("a disabled key is refused on the very next request, and works again once re-enabled", async () => {
    const key = await service.createKey("owner", { name: "toggled" });
    assertOk(await pinStatus(key));
    await update(key, { enabled: false });
    assertRefused(await pinStatus(key), /is disabled/);
    await update(key, { enabled: true });
    assertOk(await pinStatus(key));
    await update(key, { enabled: false });
    assertRefused(await pinStatus(key), /is disabled/);
  });

  test("a key disabled through another process on the same data is refused on the next request here", async () => {
    const key = await service.createKey("owner", { name: "shared" });
    assertOk(await pinStatus(key));
    const other = await startServe({ dataDir: service.dataDir });
    try {
      const disabled = await request(other.url, {
        method: "PUT",
        path: keyPath(key.key),
        authorization: service.auth("owner"),
        body: { enabled: false },
      });
      assert.equal(disabled.status, 200, disabled.text);
      assertRefused(await pinStatus(key), /is disabled/);
    } finally {
      assert.equal((await other.stop()).code, 0);
    }
  });
});

describe("validity window", () => {
  const hour = 3_600_000;
  const at = (time: number) => new Date(time).toISOString().replace("Z", "+0000");

  test("before validFrom the key is refused, naming validFrom", async () => {
    const key = await service.createKey("owner", { name: "future", validFrom: at(Date.now() + hour) });
    assertRefused(await pinStatus(key), /not valid yet: its validFrom is/);
  });

  test("at or after validTo the key is refused, naming validTo", async () => {
    const key = await service.createKey("owner", {
      name: "past",
      validFrom: at(Date.now() - 2 * hour),
      validTo: at(Date.now() - hour),
    });
    assertRefused(await pinStatus(key), /has expired: its validTo is/);
  });

  test("inside the window the key works, and moving validTo into the past refuses it at once", async () => {
    const key = await service.createKey("owner", {
      name: "window",
      validFrom: at(Date.now() - hour),
      validTo: at(Date.now() + hour),
    });
    assertOk(await pinStatus(key));
    await update(key, { validTo: at(Date.now() - 1000) });
    assertRefused(await pinStatus(key), /has expired/);
    await update(key, { validTo: null });
    assertOk(await pinStatus(key));
  });
});

describe("allowedIPs", () => {
  test("a single address admits exactly that caller", async () => {
    const key = await service.createKey("owner", { name: "one", allowedIPs: ["127.0.0.2"] });
    assertOk(await pinStatus(key, "127.0.0.2"));
    assertRefused(await pinStatus(key, "127.0.0.3"), /may not be used from 127\.0\.0\.3/);
  });

  test("a CIDR range admits the addresses inside it only", async () => {
    const key = await service.createKey("owner", { name: "range", allowedIPs: ["127.0.0.0/30"] });
    assertOk(await pinStatus(key, "127.0.0.2"));
    assertOk(await pinStatus(key, "127.0.0.3"));
    assertRefused(await pinStatus(key, "127.0.0.5"), /allowedIPs/);
  });

  test("an IPv4-mapped IPv6 entry matches the IPv4 caller", async () => {
    const key = await service.createKey("owner", { name: "mapped", allowedIPs: ["::ffff:127.0.0.2"] });
    assertOk(await pinStatus(key, "127.0.0.2"));
  });

  test("IPv6-only entries refuse an IPv4 caller", async () => {
    const key = await service.createKey("owner", { name: "v6", allowedIPs: ["::1", "2001:db8::/32"] });
    assertRefused(await pinStatus(key, "127.0.0.2"), /allowedIPs/);
  });

  test("clearing allowedIPs lifts the restriction on the next request", async () => {
    const key = await service.createKey("owner", { name: "lifted", allowedIPs: ["10.0.0.0/8"] });
    assertRefused(await pinStatus(key, "127.0.0.4"), /allowedIPs/);
    await update(key, { allowedIPs: null });
    assertOk(await pinStatus(key, "127.0.0.4"));
  });
});
