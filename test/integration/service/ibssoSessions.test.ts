import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { MAX_LIVE_SESSIONS } from "../../../electron/service/auth/ibssoSessions.ts";
import { SQLITE_ONLY } from "../../harness/keyServiceProcess.ts";
import { assertApiError, assertOk, type Service, startService } from "./serviceFixture.ts";

/**
 * IBSSO sessions, as the provider's SDK uses them: POST /auth/1/session with the account's username
 * and password in the body (and `Authorization: undefined`, as the SDK sends it) answers a token;
 * `IBSSO <token>` then stands for the account's Basic credentials on the provider's APIs, never on
 * management; DELETE ends it. OAuth is not simulated. That a session expires 60 minutes after its
 * creation is asserted on the authenticator's clock, on both stores
 * (store/storeContract.ibssoSessions.test.ts): an expired token is the 401 of an ended one here.
 */

const USERNAME = "sso";
const PASSWORD = "sso-password-1";
const SESSION = "/auth/1/session";
const APPLICATIONS = "/2fa/2/applications";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let service: Service;

before(async () => {
  service = await startService([{ username: USERNAME, password: PASSWORD }]);
});
after(() => service?.close());

async function createSession(): Promise<string> {
  const created = await service.call({
    method: "POST",
    path: SESSION,
    authorization: "undefined",
    body: { username: USERNAME, password: PASSWORD },
  });
  const { token } = assertOk<{ token: string }>(created);
  assert.match(token, UUID);
  return token;
}

const ibsso = (token: string) => `IBSSO ${token}`;
const listApplications = (authorization: string) =>
  service.call({ method: "GET", path: APPLICATIONS, authorization });

test("a session's token calls the 2FA API as the account, and a provider path it does not carry is a 404", async () => {
  const token = await createSession();
  const created = await service.call({
    method: "POST",
    path: APPLICATIONS,
    authorization: ibsso(token),
    body: { name: "made through IBSSO" },
  });
  const application = assertOk<{ applicationId: string }>(created);
  const listed = assertOk<{ applicationId: string }[]>(await listApplications(service.auth(USERNAME)));
  assert.ok(listed.some((one) => one.applicationId === application.applicationId));
  const unknownPath = await service.call({
    method: "POST",
    path: "/sms/2/text/advanced",
    authorization: ibsso(token),
    body: {},
  });
  assertApiError(unknownPath, 404, "NOT_FOUND");
});

test("the token is random and shown once: the data directory holds no token", {
  skip: SQLITE_ONLY,
}, async () => {
  const tokens = [await createSession(), await createSession()];
  assert.notEqual(tokens[0], tokens[1]);
  for (const name of await readdir(service.dataDir, { recursive: true })) {
    const bytes = await readFile(join(service.dataDir, name)).catch(() => undefined);
    for (const token of tokens) assert.ok(!bytes?.includes(token), `${name} holds a token`);
  }
});

test("DELETE ends the session: 204, then its token is a 401 everywhere, DELETE included", async () => {
  const token = await createSession();
  const ended = await service.call({ method: "DELETE", path: SESSION, authorization: ibsso(token) });
  assert.equal(ended.status, 204, ended.text);
  assertApiError(await listApplications(ibsso(token)), 401, "UNAUTHORIZED");
  assertApiError(
    await service.call({ method: "DELETE", path: SESSION, authorization: ibsso(token) }),
    401,
    "UNAUTHORIZED",
  );
  const withoutToken = await service.call({
    method: "DELETE",
    path: SESSION,
    authorization: service.auth(USERNAME),
  });
  assert.match(assertApiError(withoutToken, 401, "UNAUTHORIZED").text, /IBSSO <token>/);
});

test(`an account keeps ${MAX_LIVE_SESSIONS} live sessions: one more ends the oldest`, async () => {
  const tokens: string[] = [];
  for (let i = 0; i <= MAX_LIVE_SESSIONS; i++) tokens.push(await createSession());
  // Every session the tests before made is older still: all of them ended too.
  assertApiError(await listApplications(ibsso(tokens[0] as string)), 401, "UNAUTHORIZED");
  for (const token of tokens.slice(1)) assertOk(await listApplications(ibsso(token)));
});

test("wrong credentials, a made-up token and a malformed body are refused in the error shape", async () => {
  const wrong = await service.call({
    method: "POST",
    path: SESSION,
    body: { username: USERNAME, password: "not-the-password" },
  });
  assertApiError(wrong, 401, "UNAUTHORIZED");
  const missing = await service.call({ method: "POST", path: SESSION, body: { username: USERNAME } });
  assert.ok(assertApiError(missing, 400, "BAD_REQUEST").validationErrors?.password);
  const madeUp = await listApplications(ibsso("d3c49f59-734a-4daf-be9a-6188b540358e"));
  assert.match(assertApiError(madeUp, 401, "UNAUTHORIZED").text, /POST \/auth\/1\/session/);
});

test("management and Keydesk's own routes refuse a valid token with 403, an unknown one with 401", async () => {
  const token = await createSession();
  const keys = await service.call({
    method: "GET",
    path: "/settings/1/accounts/_/api-keys",
    authorization: ibsso(token),
  });
  assert.equal(
    assertApiError(keys, 403, "FORBIDDEN").text,
    "an IBSSO session token cannot manage API keys; use the account's Basic credentials",
  );
  const pins = await service.call({ method: "GET", path: "/local/1/pins", authorization: ibsso(token) });
  assert.equal(
    assertApiError(pins, 403, "FORBIDDEN").text,
    "the PIN inbox takes the account's Basic credentials only, not an IBSSO session token",
  );
  const unknown = await service.call({
    method: "GET",
    path: "/settings/1/accounts/_/api-keys",
    authorization: ibsso("not-a-session"),
  });
  assertApiError(unknown, 401, "UNAUTHORIZED");
});

test("OAuth (Bearer) is not simulated: a 401 that says so, on a 2FA route and on any provider path", async () => {
  for (const path of [APPLICATIONS, "/sms/2/text/advanced"]) {
    const answer = await service.call({ method: "GET", path, authorization: "Bearer eyJhbGciOi.x.y" });
    assert.match(assertApiError(answer, 401, "UNAUTHORIZED").text, /OAuth 2\.0 .* is not simulated/, path);
  }
});
