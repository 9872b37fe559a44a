import assert from "node:assert/strict";
import { test } from "node:test";
import { FailureThrottle } from "../../../../../electron/service/auth/failureThrottle.ts";

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

test("allows a burst of attempts, then says how long to wait", () => {
  const time = clock();
  const throttle = new FailureThrottle({ burst: 3, refillMs: 6_000, now: time.now });
  for (let i = 0; i < 3; i++) assert.equal(throttle.take("198.51.100.1"), 0);
  assert.equal(throttle.take("198.51.100.1"), 6);
  time.advance(4_500);
  assert.equal(throttle.take("198.51.100.1"), 2);
  time.advance(1_500);
  assert.equal(throttle.take("198.51.100.1"), 0);
});

test("one address being throttled does not affect another", () => {
  const throttle = new FailureThrottle({ burst: 1, now: clock().now });
  assert.equal(throttle.take("198.51.100.1"), 0);
  assert.ok(throttle.take("198.51.100.1") > 0);
  assert.equal(throttle.take("198.51.100.2"), 0);
});

test("a successful attempt gives its token back", () => {
  const throttle = new FailureThrottle({ burst: 2, now: clock().now });
  for (let i = 0; i < 10; i++) {
    assert.equal(throttle.take("198.51.100.1"), 0);
    throttle.refund("198.51.100.1");
  }
});

test("tracks a bounded number of addresses, forgetting the oldest", () => {
  const throttle = new FailureThrottle({ burst: 1, maxTracked: 2, now: clock().now });
  throttle.take("a");
  throttle.take("b");
  throttle.take("c");
  assert.equal(throttle.take("a"), 0, "a was forgotten, so it has a full bucket again");
  assert.ok(throttle.take("c") > 0);
});

test("remaining says the attempts an address has left, refilling, without taking one", () => {
  const time = clock();
  const throttle = new FailureThrottle({ burst: 10, refillMs: 6_000, now: time.now });
  assert.equal(throttle.remaining("198.51.100.1"), 10);
  throttle.take("198.51.100.1");
  throttle.take("198.51.100.1");
  assert.equal(throttle.remaining("198.51.100.1"), 8);
  assert.equal(throttle.remaining("198.51.100.1"), 8);
  time.advance(3_000);
  assert.equal(throttle.remaining("198.51.100.1"), 8.5);
});
