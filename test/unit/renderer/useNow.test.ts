import assert from "node:assert/strict";
import { test } from "node:test";
import { latestNow, MAX_TIMER_DELAY_MS, timerDelay } from "../../../renderer/src/useNow.ts";

test("timer delays are never negative and never beyond what setTimeout can hold", () => {
  assert.equal(timerDelay(1_000, 400), 600);
  assert.equal(timerDelay(400, 1_000), 0, "an expiry already passed: at once");
  assert.equal(timerDelay(365 * 24 * 3600 * 1000, 0), MAX_TIMER_DELAY_MS);
  assert.equal(MAX_TIMER_DELAY_MS, 2_147_483_647);
});

test("a past instant is told against the later of the last tick and the clock", () => {
  assert.equal(latestNow(10_000, 16_000), 16_000, "a tick 6 s old: the clock");
  assert.equal(latestNow(16_000, 10_000), 16_000, "never back before a tick already shown");
  const before = Date.now();
  assert.ok(latestNow(0) >= before, "the clock by default");
});
