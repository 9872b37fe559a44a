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
    "App",
    "App a b",
  ]) {
    const parsed = parseAuthorization(header);
    assert.equal(parsed.scheme, "invalid", header);
    assert.ok(parsed.scheme === "invalid" && parsed.reason.length > 0);
  }
});

test("reads an IBSSO session token", () => {
  assert.deepEqual(parseAuthorization("IBSSO d3c49f59-734a-4daf-be9a-6188b540358e"), {
    scheme: "ibsso",
    token: "d3c49f59-734a-4daf-be9a-6188b540358e",
  });
  assert.equal(parseAuthorization("IBSSO").scheme, "invalid");
});

test("the text `undefined` the provider's SDK sends without credentials is no credentials", () => {
  assert.deepEqual(parseAuthorization("undefined"), { scheme: "none" });
});

test("a Bearer token (OAuth 2.0) is refused with a reason that says OAuth is not simulated", () => {
  for (const header of ["Bearer eyJhbGciOi.x.y", "bearer x", "Bearer"]) {
    const parsed = parseAuthorization(header);
    assert.ok(parsed.scheme === "invalid" && /OAuth 2\.0 .* is not simulated/.test(parsed.reason), header);
  }
});
