import assert from "node:assert/strict";
import { test } from "node:test";
import { VerifyRateLimiter } from "../../../../../electron/service/tfa/verifyRateLimiter.ts";

const limit = { attempts: 2, windowMs: 1000 };

test("each PIN gets `attempts` calls per sliding window; refused calls are not counted", () => {
  const limiter = new VerifyRateLimiter();
  assert.deepEqual(limiter.take("A", limit, 0), { allowed: true });
  assert.deepEqual(limiter.take("A", limit, 100), { allowed: true });
  assert.deepEqual(limiter.take("A", limit, 200), { allowed: false, retryAfterMs: 800 });
  assert.deepEqual(limiter.take("A", limit, 999), { allowed: false, retryAfterMs: 1 });
  assert.deepEqual(limiter.take("A", limit, 1000), { allowed: true }, "the first call left the window");
  assert.deepEqual(limiter.take("A", limit, 1050), { allowed: false, retryAfterMs: 50 });
  assert.deepEqual(limiter.take("B", limit, 1050), { allowed: true }, "another PIN has its own window");
});

test("a changed limit applies to the next call", () => {
  const limiter = new VerifyRateLimiter();
  limiter.take("A", limit, 0);
  limiter.take("A", limit, 1);
  assert.equal(limiter.take("A", { attempts: 5, windowMs: 1000 }, 2).allowed, true);
  assert.equal(limiter.take("A", { attempts: 1, windowMs: 10 }, 20).allowed, true);
});

test("memory stays bounded: beyond its capacity the limiter forgets PINs, oldest first", () => {
  const limiter = new VerifyRateLimiter(10);
  for (let i = 0; i < 100; i++) limiter.take(`P${i}`, { attempts: 1, windowMs: 60_000 }, i);
  // The newest PIN is still tracked; the very first one was forgotten (its next call is allowed).
  assert.equal(limiter.take("P99", { attempts: 1, windowMs: 60_000 }, 100).allowed, false);
  assert.equal(limiter.take("P0", { attempts: 1, windowMs: 60_000 }, 100).allowed, true);
});
