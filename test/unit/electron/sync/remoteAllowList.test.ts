import assert from "node:assert/strict";
import { test } from "node:test";
import { remoteAllowList } from "../../../../electron/sync/remoteAllowList.ts";

test("an origin allows any path there; a prefix allows its path on whole segments", () => {
  const allow = remoteAllowList(["https://keys.example.com", "http://10.0.0.5:8787/team/"]);
  for (const url of [
    "https://keys.example.com",
    "https://keys.example.com/any/path",
    "HTTPS://Keys.Example.com:443/",
    "http://10.0.0.5:8787/team",
    "http://10.0.0.5:8787/team/sub",
  ]) {
    assert.ok(allow.allows(url), url);
  }
  for (const url of [
    "http://keys.example.com", // another scheme
    "https://keys.example.com:8443", // another port
    "https://keys.example.com.evil.test",
    "https://keys.example.com@evil.test/",
    "http://10.0.0.5:8787/",
    "http://10.0.0.5:8787/teammate",
    "http://10.0.0.5:8787/other/team",
    "not a url",
  ]) {
    assert.ok(!allow.allows(url), url);
  }
});

test("patterns that are not http(s) origins or prefixes are refused at start-up", () => {
  for (const pattern of [
    "keys.example.com",
    "ftp://keys.example.com",
    "https://u:p@keys.example.com",
    "https://k.example.com/?a=1",
  ]) {
    assert.throws(() => remoteAllowList([pattern]), /keys\.example\.com|k\.example\.com/, pattern);
  }
});
