import assert from "node:assert/strict";
import { test } from "node:test";
import { NAME_MAX_LENGTH } from "../../../shared/apiKeys.ts";
import { formatApiDateTime } from "../../../shared/datetime.ts";
import {
  baseName,
  defaultSuccessorEnd,
  isRetiring,
  predecessorOf,
  rolledAt,
  rolledName,
  rollRelatives,
  rollSearchOf,
  successorOf,
} from "../../../shared/keyRollNames.ts";

const NOW = Date.parse("2026-11-25T10:00:00Z");
const HOUR = 3600_000;
const DAY = 24 * HOUR;
const at = (time: number) => formatApiDateTime(time);

test("a rolled name carries the second of the roll; a second roll replaces the mark", () => {
  assert.equal(rolledName("billing", NOW + 43_210), "billing (rolled 2026-11-25 10:00:43 UTC)");
  assert.equal(
    rolledName("billing (rolled 2026-01-02 03:04:05 UTC)", NOW),
    "billing (rolled 2026-11-25 10:00:00 UTC)",
  );
  assert.equal(rolledName("billing (rolled 2026-01-02)", NOW), "billing (rolled 2026-11-25 10:00:00 UTC)");
  assert.notEqual(
    rolledName("billing", NOW),
    rolledName("billing", NOW + 1000),
    "two rolls in a day: two names",
  );
  assert.equal(baseName("billing (rolled 2026-01-02 03:04:05 UTC)"), "billing");
  assert.equal(baseName("billing (rolled 2026-01-02)"), "billing", "the day-only mark written before");
  assert.equal(baseName("billing"), "billing");
  assert.equal(rolledAt("billing (rolled 2026-11-25 07:43:12 UTC)"), Date.parse("2026-11-25T07:43:12Z"));
  assert.equal(rolledAt("billing (rolled 2026-11-25)"), Date.parse("2026-11-25T00:00:00Z"));
  assert.equal(rolledAt("billing"), null);
  assert.equal(rolledAt("billing (rolled yesterday)"), null);
  assert.equal(rolledAt("billing (rolled 2026-11-25 07:43 UTC)"), null);
});

test("a name at the length limit is cut (by characters, not bytes) so that the mark fits", () => {
  const name = rolledName("ключ".repeat(64), NOW);
  assert.equal([...name].length, NAME_MAX_LENGTH);
  assert.ok(name.endsWith(" (rolled 2026-11-25 10:00:00 UTC)"));
});

test("retiring: a marked name and an end still ahead, whoever rolled it", () => {
  assert.equal(isRetiring({ name: "a (rolled 2026-11-25)", validTo: at(NOW + HOUR) }, NOW), true);
  assert.equal(
    isRetiring({ name: "a (rolled 2026-11-25 09:00:00 UTC)", validTo: at(NOW + HOUR) }, NOW),
    true,
  );
  assert.equal(isRetiring({ name: "a (rolled 2026-11-25)", validTo: at(NOW - HOUR) }, NOW), false);
  assert.equal(isRetiring({ name: "a (rolled 2026-11-25)" }, NOW), false, "no end: not going away");
  assert.equal(isRetiring({ name: "a", validTo: at(NOW + HOUR) }, NOW), false);
});

/**
 * A roll as main does it: the successor is created at `time` (a few ms after the second the mark
 * writes), then the old key is renamed with that time.
 */
function roll<K extends { key: string; name: string; createdAt: string }>(old: K, time: number, key: string) {
  old.name = rolledName(old.name, time);
  return { key, name: baseName(old.name), createdAt: at(time + 7) };
}

test("a chain of three rolls in one day: each key links its own successor and predecessor", () => {
  const first = { key: "K1", name: "billing", createdAt: at(NOW - 300 * DAY) };
  const second = roll(first, NOW + 5_000, "K2");
  const third = roll(second, NOW + 2 * HOUR + 1_000, "K3");
  const fourth = roll(third, NOW + 2 * HOUR + 2_000, "K4");
  const others = [
    { key: "X1", name: "billing-eu", createdAt: at(NOW + HOUR) },
    { key: "X2", name: "old billing (rolled 2026-11-25 10:00:00 UTC)", createdAt: at(NOW - DAY) },
  ];
  const all = [fourth, third, second, first, ...others];
  assert.notEqual(first.name, second.name, "two rolls of one key on one day: two names");
  assert.equal(successorOf(first, all)?.key, "K2");
  assert.equal(successorOf(second, all)?.key, "K3");
  assert.equal(successorOf(third, all)?.key, "K4");
  assert.equal(successorOf(fourth, all), null, "not rolled");
  assert.equal(predecessorOf(first, all), null);
  assert.equal(predecessorOf(second, all)?.key, "K1");
  assert.equal(predecessorOf(third, all)?.key, "K2");
  assert.equal(predecessorOf(fourth, all)?.key, "K3");
});

test("two rolls in one day, then the successor rolled: the links follow the chain", () => {
  const first = { key: "K1", name: "ledger", createdAt: at(NOW - DAY) };
  const second = roll(first, NOW, "K2");
  const third = roll(second, NOW + 1_000, "K3");
  const all = [first, second, third];
  assert.deepEqual(
    [successorOf(first, all)?.key, successorOf(second, all)?.key, predecessorOf(third, all)?.key],
    ["K2", "K3", "K2"],
  );
});

test("the candidates: the keys of the same base name, whatever their mark; the key asked about left out", () => {
  const key = { key: "K", name: "billing (rolled 2026-11-25 10:00:00 UTC)" };
  assert.equal(rollSearchOf(key), "billing");
  const found = [
    key,
    { key: "A", name: "billing" },
    { key: "B", name: "billing (rolled 2026-11-20)" },
    { key: "C", name: "billing-eu" },
    { key: "D", name: "my billing (rolled 2026-11-25 10:00:00 UTC)" },
  ];
  assert.deepEqual(
    rollRelatives(key, found).map((candidate) => candidate.key),
    ["A", "B"],
  );
});

test("names marked with the day only still link: the roll read as at the start of that day", () => {
  const rolled = { key: "OLD", name: "billing (rolled 2026-11-25)", createdAt: at(NOW - 300 * DAY) };
  const before = { key: "B", name: "billing", createdAt: at(Date.parse("2026-11-24T23:59:00Z")) };
  const successor = { key: "S", name: "billing", createdAt: at(NOW) };
  const unknown = { key: "U", name: "billing" };
  assert.equal(successorOf(rolled, [before, successor, unknown])?.key, "S");
  assert.equal(successorOf(rolled, [before, unknown]), null, "none created at or after the roll day");
  assert.equal(predecessorOf(successor, [rolled, before])?.key, "OLD");
  assert.equal(predecessorOf(before, [rolled]), null, "created before the roll");
  assert.equal(predecessorOf(unknown, [rolled]), null, "creation time unknown");
});

test("the new key keeps the old key's end only when it is more than 30 days away", () => {
  assert.deepEqual(defaultSuccessorEnd(undefined, NOW), { validTo: null, oldEnd: null, kept: true });
  const far = at(NOW + 31 * DAY);
  assert.deepEqual(defaultSuccessorEnd(far, NOW), { validTo: far, oldEnd: NOW + 31 * DAY, kept: true });
  assert.deepEqual(defaultSuccessorEnd(at(NOW + 3 * DAY), NOW), {
    validTo: null,
    oldEnd: NOW + 3 * DAY,
    kept: false,
  });
  assert.deepEqual(defaultSuccessorEnd(at(NOW - DAY), NOW), {
    validTo: null,
    oldEnd: NOW - DAY,
    kept: false,
  });
});
