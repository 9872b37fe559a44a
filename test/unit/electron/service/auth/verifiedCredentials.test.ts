import assert from "node:assert/strict";
import { test } from "node:test";
import { VerifiedCredentials } from "../../../../../electron/service/auth/verifiedCredentials.ts";

test("remembers verified credentials under a digest that does not contain the password", () => {
  const cache = new VerifiedCredentials();
  const digest = cache.digest("alice", "s3cret-password", "scrypt$hash1");
  assert.ok(!digest.includes("s3cret"));
  assert.equal(cache.has(digest), false);
  cache.add(digest);
  assert.equal(cache.has(digest), true);
});

test("a changed stored hash (a password change) makes the old entry unreachable", () => {
  const cache = new VerifiedCredentials();
  cache.add(cache.digest("alice", "pw", "scrypt$old"));
  assert.equal(cache.has(cache.digest("alice", "pw", "scrypt$new")), false);
});

test("username and password boundaries cannot be shifted to forge an entry", () => {
  const cache = new VerifiedCredentials();
  cache.add(cache.digest("ali", "ce:pw", "h"));
  assert.equal(cache.has(cache.digest("alice", ":pw", "h")), false);
});

test("keeps at most its capacity, dropping the least recently used", () => {
  const cache = new VerifiedCredentials(2);
  const [a, b, c] = ["a", "b", "c"].map((user) => cache.digest(user, "pw", "h")) as [string, string, string];
  cache.add(a);
  cache.add(b);
  assert.ok(cache.has(a)); // a is now the most recent
  cache.add(c);
  assert.ok(cache.has(a));
  assert.ok(!cache.has(b));
  assert.ok(cache.has(c));
});
