import assert from "node:assert/strict";
import { test } from "node:test";
import { ServiceCallFailure } from "../../../../electron/client/serviceCallFailure.ts";
import {
  backoffMs,
  classifyRemoteFailure,
  MAX_BACKOFF_MS,
  MIN_BACKOFF_MS,
} from "../../../../electron/sync/remoteFailure.ts";

test("401 asks for credentials, 429 keeps the remote's Retry-After", () => {
  assert.equal(
    classifyRemoteFailure(new ServiceCallFailure("UNAUTHORIZED", "no", undefined, 401)).kind,
    "credentials",
  );
  const throttled = classifyRemoteFailure(
    new ServiceCallFailure("TOO_MANY_REQUESTS", "slow", undefined, 429, 7000),
  );
  assert.deepEqual(throttled.kind === "throttled" && throttled.retryAfterMs, 7000);
});

test("no answer, 5xx, 408 and answers that are not the API end the run; other 4xx refuse one change", () => {
  assert.equal(classifyRemoteFailure(new ServiceCallFailure("UNREACHABLE", "down")).kind, "unavailable");
  assert.equal(
    classifyRemoteFailure(new ServiceCallFailure("GENERAL_ERROR", "x", undefined, 503)).kind,
    "unavailable",
  );
  assert.equal(
    classifyRemoteFailure(new ServiceCallFailure("GENERAL_ERROR", "x", undefined, 408)).kind,
    "unavailable",
  );
  assert.equal(
    classifyRemoteFailure(new ServiceCallFailure("GENERAL_ERROR", "x", undefined, 200)).kind,
    "unavailable",
  );
  assert.equal(classifyRemoteFailure(new Error("bug")).kind, "unavailable");
  const refused = classifyRemoteFailure(new ServiceCallFailure("BAD_REQUEST", "bad name", undefined, 400));
  assert.deepEqual(refused, { kind: "refused", text: "HTTP 400 BAD_REQUEST: bad name", status: 400 });
  assert.equal(
    classifyRemoteFailure(new ServiceCallFailure("NOT_FOUND", "gone", undefined, 404)).kind,
    "refused",
  );
  const foreign = classifyRemoteFailure(
    new ServiceCallFailure("GENERAL_ERROR", "check the base URL", undefined, 422),
  );
  assert.deepEqual(foreign, { kind: "refused", text: "the remote answered HTTP 422", status: 422 });
});

test("a remote's text is kept with its status and messageId, without identifiers of accounts or keys", () => {
  const accountKey = "3A4F0C9E2B7D41F6A8C5E0D9B1F2A3C4";
  const key = "9f8e7d6c5b4a39281706f5e4d3c2b1a0";
  const publicApiKey = `${key}-1b4e28ba-2fa1-41d2-883f-0016d3cca427`;
  const refused = classifyRemoteFailure(
    new ServiceCallFailure(
      "NOT_FOUND",
      `no API key ${key} in account ${accountKey} (publicApiKey ${publicApiKey})`,
      undefined,
      404,
    ),
  );
  assert.equal(refused.text, "HTTP 404 NOT_FOUND: no API key [id] in account [id] (publicApiKey [id])");
  const paused = classifyRemoteFailure(
    new ServiceCallFailure("UNAUTHORIZED", `account ${accountKey}`, undefined, 401),
  );
  assert.equal(paused.text, "the remote refused the credentials (HTTP 401 UNAUTHORIZED: account [id])");
  const down = classifyRemoteFailure(new Error(`socket of ${accountKey} closed`));
  assert.equal(down.text, "socket of [id] closed");
  const long = classifyRemoteFailure(
    new ServiceCallFailure("BAD_REQUEST", "x".repeat(5_000), undefined, 400),
  );
  assert.ok(long.text.length < 600, "a remote cannot store a text of any length");
});

test("backoff doubles from 1 s up to 5 min, within ±20 %", () => {
  const exact = (failures: number) => backoffMs(failures, () => 0.5);
  assert.equal(exact(1), MIN_BACKOFF_MS);
  assert.equal(exact(2), 2 * MIN_BACKOFF_MS);
  assert.equal(exact(5), 16 * MIN_BACKOFF_MS);
  assert.equal(exact(100), MAX_BACKOFF_MS);
  assert.equal(
    backoffMs(3, () => 0),
    0.8 * 4 * MIN_BACKOFF_MS,
  );
  assert.equal(
    backoffMs(3, () => 1),
    1.2 * 4 * MIN_BACKOFF_MS,
  );
});
