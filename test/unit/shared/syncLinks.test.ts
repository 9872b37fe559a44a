import assert from "node:assert/strict";
import { test } from "node:test";
import { linkUses, sameBaseUrl } from "../../../shared/syncLinks.ts";

test("base URLs are the same whatever their trailing slashes and host case", () => {
  assert.equal(sameBaseUrl("http://127.0.0.1:8787", "http://127.0.0.1:8787/"), true);
  assert.equal(sameBaseUrl("https://Keys.Example.com/api/", "https://keys.example.com/api"), true);
  assert.equal(sameBaseUrl("http://127.0.0.1:8787", "http://127.0.0.1:8788"), false);
  assert.equal(sameBaseUrl("http://keys.example.com", "https://keys.example.com"), false);
  assert.equal(sameBaseUrl("not a url/", "not a url"), true);
});

test("a link uses a profile's credentials when base URL and username match", () => {
  const link = { remote: { baseUrl: "http://127.0.0.1:9000/", username: "alice", accountKey: "_" } };
  assert.equal(linkUses(link, { baseUrl: "http://127.0.0.1:9000", username: "alice" }), true);
  assert.equal(linkUses(link, { baseUrl: "http://127.0.0.1:9000", username: "Alice" }), false);
  assert.equal(linkUses(link, { baseUrl: "http://127.0.0.1:9001", username: "alice" }), false);
});
