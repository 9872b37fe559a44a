import assert from "node:assert/strict";
import { test } from "node:test";
import { SERVICE_ROUTES, servicePath } from "../../../shared/servicePaths.ts";

/** The client calls the routes the service declares: one spelling, parameters filled in encoded. */

test("servicePath fills each :parameter with its value, percent-encoded, and leaves a plain route as it is", () => {
  assert.equal(
    servicePath(SERVICE_ROUTES.apiKey, { accountKey: "_", key: "a/b c" }),
    "/settings/1/accounts/_/api-keys/a%2Fb%20c",
  );
  assert.equal(
    servicePath(SERVICE_ROUTES.apiKeyUsageSeries, { accountKey: "A1", key: "K2" }),
    "/local/1/accounts/A1/api-keys/K2/usage-series",
  );
  assert.equal(servicePath(SERVICE_ROUTES.tfaApiKey, { version: "2" }), "/2fa/2/api-key");
  assert.equal(servicePath(SERVICE_ROUTES.localAccounts), "/local/1/accounts");
});
