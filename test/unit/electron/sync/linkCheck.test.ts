import assert from "node:assert/strict";
import { test } from "node:test";
import { ServiceCallFailure } from "../../../../electron/client/serviceCallFailure.ts";
import { linkCheckFailure } from "../../../../electron/sync/linkCheck.ts";

const URL = "https://keys.example.com";
const partOf = (error: unknown, accountKey = "_") => {
  const check = linkCheckFailure(URL, accountKey, error);
  assert.equal(check.ok, false);
  return check.ok ? null : check;
};

test("no answer, a 5xx or an answer that is not the API: the remote is not reachable as the API", () => {
  for (const error of [
    new ServiceCallFailure("UNREACHABLE", `could not reach ${URL} (ECONNREFUSED)`),
    new ServiceCallFailure("GENERAL_ERROR", "the service failed", undefined, 503),
    new ServiceCallFailure(
      "GENERAL_ERROR",
      "answered something that is not the key-management API",
      undefined,
      200,
    ),
  ]) {
    const check = partOf(error);
    assert.equal(check?.part, "reachable", error.message);
    assert.match(check?.text ?? "", /is not reachable as the key-management API/);
  }
  const noRoute = partOf(new ServiceCallFailure("NOT_FOUND", "no such route GET /x", undefined, 404));
  assert.equal(noRoute?.part, "reachable");
  assert.match(noRoute?.text ?? "", /has no key-management API at that address/);
});

test("401 and 429: the credentials part, in words", () => {
  const refused = partOf(
    new ServiceCallFailure("UNAUTHORIZED", "the username or password is wrong", undefined, 401),
  );
  assert.equal(refused?.part, "credentials");
  assert.equal(
    refused?.text,
    `${URL} refused the username or password; check them (HTTP 401 UNAUTHORIZED: the username or password is wrong)`,
  );
  const throttled = partOf(new ServiceCallFailure("TOO_MANY_REQUESTS", "slow down", undefined, 429));
  assert.equal(throttled?.part, "credentials");
  assert.match(throttled?.text ?? "", /try again later/);
});

test("403 or 404 to the account's keys: the account part, naming the account", () => {
  for (const status of [403, 404]) {
    const check = partOf(
      new ServiceCallFailure(
        status === 404 ? "NOT_FOUND" : "FORBIDDEN",
        "no such account",
        undefined,
        status,
      ),
      "0123456789ABCDEF0123456789ABCDEF",
    );
    assert.equal(check?.part, "account");
    assert.match(check?.text ?? "", /may not manage the keys of account 0123456789ABCDEF0123456789ABCDEF/);
  }
  assert.match(
    partOf(new ServiceCallFailure("NOT_FOUND", "no", undefined, 404))?.text ?? "",
    /the credentials' own account/,
  );
});
