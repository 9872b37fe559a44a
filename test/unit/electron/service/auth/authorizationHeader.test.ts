import assert from "node:assert/strict";
import { test } from "node:test";
import { parseAuthorization } from "../../../../../electron/service/auth/authorizationHeader.ts";

const b64 = (text: string) => Buffer.from(text).toString("base64");

test("reads Basic credentials; the password may contain colons", () => {
  assert.deepEqual(parseAuthorization(`Basic ${b64("alice:pa:ss")}`), {
    scheme: "basic",
    username: "alice",
    password: "pa:ss",
  });
  assert.deepEqual(parseAuthorization(`basic ${b64("bob:")}`), {
    scheme: "basic",
    username: "bob",
    password: "",
  });
});

test("reads an App key", () => {
  assert.deepEqual(parseAuthorization("App abc-123"), { scheme: "app", publicApiKey: "abc-123" });
});

test("no header is 'none'; anything malformed is 'invalid' with a reason", () => {
  assert.deepEqual(parseAuthorization(undefined), { scheme: "none" });
  assert.deepEqual(parseAuthorization("  "), { scheme: "none" });
  for (const header of [
    `Basic ${b64("no-colon")}`,
    `Basic ${b64(":empty-user")}`,
    "Basic !!!",
    "Bearer x",
    "App",
    "App a b",
  ]) {
    const parsed = parseAuthorization(header);
    assert.equal(parsed.scheme, "invalid", header);
    assert.ok(parsed.scheme === "invalid" && parsed.reason.length > 0);
  }
});
