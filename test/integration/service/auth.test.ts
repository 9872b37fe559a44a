import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { basic, runCli } from "../../harness/keyServiceProcess.ts";
import {
  type ApiKey,
  assertApiError,
  assertOk,
  keyPath,
  keysPath,
  type Service,
  startService,
} from "./serviceFixture.ts";

/** Basic authorization of the management routes, the App scheme refused there, and the failure throttle. */

let service: Service;
const ALICE = "alice";
const COLON = "colon";
const DAVE = "dave";
const TINA = "tina";
const BOB = "bob";
const CAROL = "carol";
const PASSWORDS: Record<string, string> = {
  [ALICE]: "alice-secret-1",
  [COLON]: "pa:ss:word",
  [DAVE]: "dave-old-password",
  [TINA]: "tina-secret-1",
  [BOB]: "bob-secret-1",
  [CAROL]: "carol-secret-1",
};
let allKey: ApiKey;
let tfaKey: ApiKey;
let disabledKey: ApiKey;

before(async () => {
  service = await startService(
    Object.entries(PASSWORDS).map(([username, password]) => ({ username, password })),
  );
  allKey = await service.createKey(ALICE, { name: "all" });
  tfaKey = await service.createKey(ALICE, { name: "tfa", permissions: ["TFA"] });
  disabledKey = await service.createKey(ALICE, { name: "disabled" });
  const res = await service.call({
    method: "PUT",
    path: keyPath(disabledKey.key),
    authorization: service.auth(ALICE),
    body: { enabled: false },
  });
  assertOk(res);
});
after(async () => {
  await service?.close();
});

/**
 * Failed password checks are throttled per client address (10 in a burst), so each test that
 * makes several of them connects from its own loopback address.
 */
const ADDRESS = {
  wrongPassword: "127.0.1.1",
  unknownUser: "127.0.1.2",
  exactness: "127.0.1.3",
  passwordChange: "127.0.1.4",
};

/** Every management route, called with the given Authorization header (or none). */
function managementCalls(authorization: string | undefined, localAddress?: string) {
  const call = (options: Parameters<Service["call"]>[0]) =>
    service.call({ ...options, authorization, ...(localAddress && { localAddress }) });
  return {
    "GET list": () => call({ path: keysPath() }),
    "GET lookup": () => call({ path: `${keysPath()}?name=all` }),
    "POST create": () => call({ method: "POST", path: keysPath(), body: { name: "sneaky" } }),
    "GET one": () => call({ path: keyPath(allKey.key) }),
    "PUT update": () => call({ method: "PUT", path: keyPath(allKey.key), body: { enabled: false } }),
    "POST /2fa/1/api-key": () => call({ method: "POST", path: "/2fa/1/api-key" }),
    "POST /2fa/2/api-key": () => call({ method: "POST", path: "/2fa/2/api-key" }),
  };
}

async function assertEvery401(authorization: string | undefined, localAddress?: string) {
  for (const [route, call] of Object.entries(managementCalls(authorization, localAddress))) {
    const res = await call();
    assert.equal(res.status, 401, `${route}: ${res.status} ${res.text}`);
    assertApiError(res, 401, "UNAUTHORIZED");
    assert.match(
      String(res.headers["www-authenticate"]),
      /^Basic realm="key-service"/,
      `${route} lacks the Basic challenge`,
    );
  }
}

describe("Basic credentials", () => {
  test("the right username and password are accepted", async () => {
    assertOk(await service.call({ path: keysPath(), authorization: service.auth(ALICE) }));
  });

  test("a password containing colons works (only the first colon separates the username)", async () => {
    assertOk(
      await service.call({ path: keysPath(), authorization: basic(COLON, PASSWORDS[COLON] as string) }),
    );
  });

  test('no Authorization header is a 401 with WWW-Authenticate: Basic realm="key-service" on every route', async () => {
    await assertEvery401(undefined);
  });

  test("a wrong password is a 401 with the Basic challenge", async () => {
    await assertEvery401(basic(ALICE, "wrong-password"), ADDRESS.wrongPassword);
  });

  test("an unknown user is a 401 with the Basic challenge, worded like a wrong password", async () => {
    await assertEvery401(basic("nobody", "whatever"), ADDRESS.unknownUser);
    const unknown = assertApiError(
      await service.call({
        path: keysPath(),
        authorization: basic("nobody", "whatever"),
        localAddress: ADDRESS.unknownUser,
      }),
      401,
      "UNAUTHORIZED",
    );
    const wrong = assertApiError(
      await service.call({
        path: keysPath(),
        authorization: basic(ALICE, "wrong"),
        localAddress: ADDRESS.unknownUser,
      }),
      401,
      "UNAUTHORIZED",
    );
    assert.equal(unknown.text, wrong.text);
  });

  test("the username is case-sensitive and the password exact", async () => {
    const localAddress = ADDRESS.exactness;
    const password = PASSWORDS[ALICE] as string;
    const upper = await service.call({
      path: keysPath(),
      authorization: basic("ALICE", password),
      localAddress,
    });
    assertApiError(upper, 401, "UNAUTHORIZED");
    const padded = await service.call({
      path: keysPath(),
      authorization: basic(ALICE, `${password} `),
      localAddress,
    });
    assertApiError(padded, 401, "UNAUTHORIZED");
  });

  const malformed: [string, string][] = [
    ["scheme only", "Basic"],
    ["not base64", "Basic !!!notbase64!!!"],
    ["base64 without a colon", `Basic ${Buffer.from("alicepassword").toString("base64")}`],
    ["an empty username", `Basic ${Buffer.from(":alice-secret-1").toString("base64")}`],
    ["an unknown scheme", "Bearer abc.def.ghi"],
    ["credentials without a scheme", Buffer.from("alice:alice-secret-1").toString("base64")],
    ["Digest", 'Digest username="alice"'],
  ];
  for (const [what, header] of malformed) {
    test(`a malformed Authorization header (${what}) is a 401 with the Basic challenge`, async () => {
      await assertEvery401(header);
    });
  }

  test("nothing was created or changed by any refused call", async () => {
    const keys = await service.listKeys(ALICE);
    assert.deepEqual(
      keys.map((key) => key.key),
      [allKey.key, tfaKey.key, disabledKey.key],
    );
    assert.deepEqual(keys[0], allKey);
  });
});

describe("App authorization on management routes", () => {
  for (const [what, key] of [
    ["an ALL key", () => allKey],
    ["a TFA key", () => tfaKey],
    ["a disabled key", () => disabledKey],
  ] as const) {
    test(`a valid publicApiKey (${what}) is a 403 FORBIDDEN on every management route`, async () => {
      for (const [route, call] of Object.entries(managementCalls(`App ${key().publicApiKey}`))) {
        const res = await call();
        assert.equal(res.status, 403, `${route}: ${res.status} ${res.text}`);
        assertApiError(res, 403, "FORBIDDEN");
      }
    });
  }

  test("an App key that does not exist is a 401", async () => {
    await assertEvery401(`App ${"0".repeat(32)}-00000000-0000-4000-8000-000000000000`);
    await assertEvery401("App not-a-key");
  });

  test("API keys created nothing and changed nothing", async () => {
    const keys = await service.listKeys(ALICE);
    assert.deepEqual(
      keys.map((key) => key.key),
      [allKey.key, tfaKey.key, disabledKey.key],
    );
    assert.deepEqual(keys[0], allKey);
  });
});

describe("password change while the service runs", () => {
  test("after `account passwd` the old password is refused on the next request and the new one accepted", async () => {
    const oldAuth = basic(DAVE, PASSWORDS[DAVE] as string);
    const localAddress = ADDRESS.passwordChange;
    // Verified once, so later requests with it are answered from the verification cache.
    assertOk(await service.call({ path: keysPath(), authorization: oldAuth, localAddress }));
    assertOk(await service.call({ path: keysPath(), authorization: oldAuth, localAddress }));

    const newPassword = "dave-new-password";
    const changed = await runCli(["account", "passwd", "--data-dir", service.dataDir, "--username", DAVE], {
      KEY_SERVICE_PASSWORD: newPassword,
    });
    assert.equal(changed.code, 0, changed.stderr);

    assertApiError(
      await service.call({ path: keysPath(), authorization: oldAuth, localAddress }),
      401,
      "UNAUTHORIZED",
    );
    assertOk(await service.call({ path: keysPath(), authorization: basic(DAVE, newPassword), localAddress }));
    assertApiError(
      await service.call({ path: keysPath(), authorization: oldAuth, localAddress }),
      401,
      "UNAUTHORIZED",
    );
  });
});

describe("throttling of failed sign-ins per client address", () => {
  const THROTTLED = "127.0.0.2";
  const ELSEWHERE = "127.0.0.3";
  const listFrom = (localAddress: string, authorization: string) =>
    service.call({ path: keysPath(), authorization, localAddress });

  test("after 10 failed attempts from one address the 11th is a 429 there, and only there", async () => {
    const tinaAuth = basic(TINA, PASSWORDS[TINA] as string);
    // Tina signs in from the address that is about to be throttled: her credentials are now verified.
    assertOk(await listFrom(THROTTLED, tinaAuth));

    // Eleven wrong passwords at once. Each takes its token when it arrives, before its (slow) password
    // check, so the bucket (10, plus one per 6 s) cannot refill meanwhile however loaded the machine is:
    // exactly one of them, the last to arrive, is refused at once with a 429.
    const attempts = Array.from({ length: 11 }, (_, i) => listFrom(THROTTLED, basic(TINA, `wrong-${i}`)));
    const refused = await Promise.any(
      attempts.map((attempt) =>
        attempt.then((res) => (res.status === 429 ? res : Promise.reject(new Error(String(res.status))))),
      ),
    ).catch(async () => {
      const statuses = (await Promise.all(attempts)).map((res) => res.status);
      assert.fail(`none of 11 failed attempts was throttled: ${statuses.join(", ")}`);
    });
    assertApiError(refused, 429, "TOO_MANY_REQUESTS");
    const retryAfter = String(refused.headers["retry-after"]);
    assert.match(retryAfter, /^\d+$/, `Retry-After is not a number of seconds: ${retryAfter}`);
    assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 6, `Retry-After ${retryAfter}`);

    // While the others' password checks still run, the address has no token left:
    // a new correct sign-in (an account never used before) from it must wait too...
    assertApiError(
      await listFrom(THROTTLED, basic(CAROL, PASSWORDS[CAROL] as string)),
      429,
      "TOO_MANY_REQUESTS",
    );
    // ...as must another guess.
    assertApiError(await listFrom(THROTTLED, basic(TINA, "wrong-11")), 429, "TOO_MANY_REQUESTS");
    // Credentials already used from the throttled address still pass there (a failing app on the
    // admin's machine does not lock the admin out)...
    assertOk(await listFrom(THROTTLED, tinaAuth));
    // Another address is not affected, even for a first sign-in that needs the password check.
    assertOk(await listFrom(ELSEWHERE, basic(BOB, PASSWORDS[BOB] as string)));
    // ...but credentials verified only elsewhere get the 429 of every other guess: let through, the
    // one 200 among the 429s would tell a guesser which guess was right.
    assertApiError(await listFrom(THROTTLED, basic(BOB, PASSWORDS[BOB] as string)), 429, "TOO_MANY_REQUESTS");

    const statuses = (await Promise.all(attempts)).map((res) => res.status).sort();
    assert.deepEqual(statuses, [...Array(10).fill(401), 429]);
  });
});
