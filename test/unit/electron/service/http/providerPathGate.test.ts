import assert from "node:assert/strict";
import { test } from "node:test";
import { unroutedAnswers } from "../../../../../electron/service/http/openApiErrors.ts";
import { isServicePath, SERVICE_PATHS } from "../../../../../electron/service/http/providerPathGate.ts";

test("the service's own paths: management, Keydesk's /local/ routes, its contract and metrics, one trailing slash or a query included", () => {
  for (const path of [
    "/settings/1/accounts/_/api-keys",
    "/settings/1/accounts/_/api-keys?limit=10",
    "/local/1/pins/stream",
    "/local/1/health/live",
    "/openapi.json",
    "/openapi.json/",
    "/openapi.json?x=1",
    "/metrics",
    "/metrics/",
  ]) {
    assert.equal(isServicePath(path), true, path);
  }
});

test("every other path is the provider's, the root and near-misses of the service's own included", () => {
  for (const path of [
    "/",
    "/sms/2/text/advanced",
    "/2fa/2/applications",
    "/2fa/2/api-key",
    "/auth/1/session",
    "/settings",
    "/local",
    "/metrics/x",
    "/metricsx",
    "/openapi.yaml",
    "/SETTINGS/1/accounts",
  ]) {
    assert.equal(isServicePath(path), false, path);
  }
});

test("/openapi.json's x-unknown-path names the service's own paths the gate keeps, each once", () => {
  const { description } = unroutedAnswers["x-unknown-path"];
  const named = [...description.matchAll(/`(\/[^`]*)`/g)].map((match) => match[1]);
  assert.deepEqual(named, [...SERVICE_PATHS]);
  for (const path of SERVICE_PATHS) assert.equal(isServicePath(path), true, path);
});
