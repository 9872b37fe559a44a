import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertApiError, type Service, startService } from "./serviceFixture.ts";

/**
 * An API key, ALL included, on a route that takes Basic credentials only: 403 FORBIDDEN whose text
 * says what the route is (managing keys, the PIN inbox, the audit history, sync links, accounts),
 * not "cannot manage API keys" everywhere.
 */

let service: Service;
let app: string;

before(async () => {
  service = await startService([{ username: "owner", password: "owner-password-1" }]);
  const key = await service.createKey("owner", { name: "app", permissions: ["ALL"] });
  app = `App ${key.publicApiKey}`;
});
after(async () => {
  await service?.close();
});

const refusal = async (method: string, path: string) =>
  assertApiError(await service.call({ method, path, authorization: app }), 403, "FORBIDDEN").text;

test("managing keys with an API key is refused as managing API keys", async () => {
  for (const [method, path] of [
    ["GET", "/settings/1/accounts/_/api-keys"],
    ["POST", "/2fa/2/api-key"],
    ["GET", "/local/1/accounts/_/api-keys/count"],
  ] as const)
    assert.equal(
      await refusal(method, path),
      "an API key cannot manage API keys; use the account's Basic credentials",
      `${method} ${path}`,
    );
});

test("Keydesk's own routes name what they are in the refusal", async () => {
  const cases: [string, string, string][] = [
    ["GET", "/local/1/pins", "the PIN inbox takes the account's Basic credentials only, not an API key"],
    [
      "GET",
      "/local/1/pins?to=41793026727",
      "the PIN inbox takes the account's Basic credentials only, not an API key",
    ],
    ["GET", "/local/1/audit", "the audit history takes the account's Basic credentials only, not an API key"],
    ["GET", "/local/1/sync/links", "sync links take the account's Basic credentials only, not an API key"],
    [
      "GET",
      "/local/1/accounts",
      "accounts are managed with the account's Basic credentials only, not an API key",
    ],
  ];
  for (const [method, path, text] of cases)
    assert.equal(await refusal(method, path), text, `${method} ${path}`);
});
