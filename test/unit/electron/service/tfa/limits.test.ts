import assert from "node:assert/strict";
import { test } from "node:test";
import {
  MAX_DURATION_MS,
  parseDuration,
  parseRateLimit,
  windowDecision,
} from "../../../../../electron/service/tfa/limits.ts";

const DAY = 86_400_000;

test("durations are {timeLength}{timeUnit} in ms, s, m, h or d, timeLength defaulting to 1", () => {
  const cases: [string, number][] = [
    ["500ms", 500],
    ["ms", 1],
    ["30s", 30_000],
    ["s", 1_000],
    ["15m", 900_000],
    ["m", 60_000],
    ["2h", 7_200_000],
    ["1d", DAY],
    ["d", DAY],
    ["365d", 365 * DAY],
    ["8760h", 365 * DAY],
    ["007s", 7_000],
  ];
  for (const [text, ms] of cases) assert.deepEqual(parseDuration(text), { ok: true, value: ms }, text);
});

test("a duration of zero, over one year, or in any other shape is refused with a reason", () => {
  const refused: [string, RegExp][] = [
    ["0s", /longer than zero/],
    ["0ms", /longer than zero/],
    ["366d", /one year/],
    [`${MAX_DURATION_MS + 1}ms`, /one year/],
    // In words first (a form shows it to a person), then the provider's notation.
    [
      "15",
      /^must be a number and a unit \(ms, s, m, h or d\), for example 15m: the provider's \{timeLength\}/,
    ],
    ["", /timeLength/],
    ["15 m", /timeLength/],
    [" 15m", /timeLength/],
    ["1.5m", /timeLength/],
    ["15M", /timeLength/],
    ["-1s", /timeLength/],
    ["15min", /timeLength/],
    ["1w", /timeLength/],
    ["1y", /timeLength/],
    ["1e3ms", /timeLength/],
    ["9999999999999d", /timeLength/],
  ];
  for (const [text, reason] of refused) {
    const parsed = parseDuration(text);
    assert.equal(parsed.ok, false, text);
    if (!parsed.ok) assert.match(parsed.problem, reason, text);
  }
});

test("limits are {attempts}/{timeLength}{timeUnit}", () => {
  assert.deepEqual(parseRateLimit("10000/1d"), { ok: true, value: { attempts: 10_000, windowMs: DAY } });
  assert.deepEqual(parseRateLimit("1/3s"), { ok: true, value: { attempts: 1, windowMs: 3_000 } });
  assert.deepEqual(parseRateLimit("3/d"), { ok: true, value: { attempts: 3, windowMs: DAY } });
  assert.deepEqual(parseRateLimit("2/500ms"), { ok: true, value: { attempts: 2, windowMs: 500 } });
  assert.deepEqual(parseRateLimit("1000000/365d"), {
    ok: true,
    value: { attempts: 1_000_000, windowMs: 365 * DAY },
  });
});

test("limits without attempts, with zero attempts or with a bad window are refused", () => {
  const refused: [string, RegExp][] = [
    ["3", /attempts/],
    ["/1d", /attempts/],
    ["a/3s", /attempts/],
    ["-1/3s", /attempts/],
    ["1.5/3s", /attempts/],
    ["0/1d", /at least 1/],
    ["1000001/1d", /at most 1000000/],
    ["3/", /time window/],
    ["3/0s", /time window.*longer than zero/],
    ["3/2y", /time window/],
    ["3/366d", /time window.*one year/],
    ["3/ 1d", /time window/],
    ["3 /1d", /attempts/],
    ["3/1d/2", /time window/],
  ];
  for (const [text, reason] of refused) {
    const parsed = parseRateLimit(text);
    assert.equal(parsed.ok, false, text);
    if (!parsed.ok) assert.match(parsed.problem, reason, text);
  }
});

test("a sliding window allows one more event until `attempts` events fall inside it", () => {
  const limit = { attempts: 3, windowMs: 1000 };
  const now = 10_000;
  assert.deepEqual(windowDecision(limit, undefined, now), { allowed: true }, "fewer events than attempts");
  assert.deepEqual(
    windowDecision(limit, now - 1000, now),
    { allowed: true },
    "the third newest just left the window",
  );
  assert.deepEqual(windowDecision(limit, now - 999, now), { allowed: false, retryAfterMs: 1 });
  assert.deepEqual(windowDecision(limit, now - 200, now), { allowed: false, retryAfterMs: 800 });
  assert.deepEqual(windowDecision(limit, now, now), { allowed: false, retryAfterMs: 1000 });
});
