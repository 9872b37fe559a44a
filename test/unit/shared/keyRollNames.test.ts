import assert from "node:assert/strict";
import { test } from "node:test";
import { NAME_MAX_LENGTH } from "../../../shared/apiKeys.ts";
import { formatApiDateTime } from "../../../shared/datetime.ts";
import {
  baseName,
  defaultSuccessorEnd,
  isRetiring,
  predecessorNameOf,
  predecessorOf,
  rolledAt,
  rolledName,
  successorNameOf,
  successorOf,
} from "../../../shared/keyRollNames.ts";

const NOW = Date.parse("2026-11-25T10:00:00Z");
const HOUR = 3600_000;
const DAY = 24 * HOUR;
const at = (time: number) => formatApiDateTime(time);

test("a rolled name carries the day of the roll; a second roll replaces the mark", () => {
  assert.equal(rolledName("billing", NOW), "billing (rolled 2026-11-25)");
  assert.equal(rolledName("billing (rolled 2026-01-02)", NOW), "billing (rolled 2026-11-25)");
  assert.equal(baseName("billing (rolled 2026-01-02)"), "billing");
  assert.equal(baseName("billing"), "billing");
  assert.equal(rolledAt("billing (rolled 2026-11-25)"), Date.parse("2026-11-25T00:00:00Z"));
  assert.equal(rolledAt("billing"), null);
  assert.equal(rolledAt("billing (rolled yesterday)"), null);
});

test("a name at the length limit is cut (by characters, not bytes) so that the mark fits", () => {
  const name = rolledName("ключ".repeat(64), NOW);
  assert.equal([...name].length, NAME_MAX_LENGTH);
  assert.ok(name.endsWith(" (rolled 2026-11-25)"));
});

test("retiring: a marked name and an end still ahead, whoever rolled it", () => {
  assert.equal(isRetiring({ name: "a (rolled 2026-11-25)", validTo: at(NOW + HOUR) }, NOW), true);
  assert.equal(isRetiring({ name: "a (rolled 2026-11-25)", validTo: at(NOW - HOUR) }, NOW), false);
  assert.equal(isRetiring({ name: "a (rolled 2026-11-25)" }, NOW), false, "no end: not going away");
  assert.equal(isRetiring({ name: "a", validTo: at(NOW + HOUR) }, NOW), false);
});

test("a rolled key's successor: the newest key of its base name created at or after the roll day", () => {
  const rolled = { key: "OLD", name: "billing (rolled 2026-11-25)", createdAt: at(NOW - 300 * DAY) };
  assert.equal(successorNameOf(rolled), "billing");
  assert.equal(successorNameOf({ name: "billing" }), null);
  const before = { key: "B", name: "billing", createdAt: at(Date.parse("2026-11-24T23:59:00Z")) };
  const first = { key: "S1", name: "billing", createdAt: at(Date.parse("2026-11-25T08:00:00Z")) };
  const newest = { key: "S2", name: "billing", createdAt: at(NOW) };
  const unknown = { key: "U", name: "billing" };
  assert.equal(successorOf(rolled, [before, first, newest, unknown])?.key, "S2");
  assert.equal(successorOf(rolled, [before, first])?.key, "S1");
  assert.equal(successorOf(rolled, [before, unknown]), null, "none created at or after the roll day");
});

test("a successor's predecessor: the key named as a roll on the successor's creation day names it", () => {
  const successor = { key: "S", name: "billing", createdAt: at(NOW) };
  assert.equal(predecessorNameOf(successor), "billing (rolled 2026-11-25)");
  assert.equal(predecessorNameOf({ key: "S", name: "billing" }), null, "creation time unknown");
  const old = { key: "O", name: "billing (rolled 2026-11-25)", createdAt: at(NOW - 30 * DAY) };
  const older = { key: "P", name: "billing (rolled 2026-11-25)", createdAt: at(NOW - 60 * DAY) };
  const afterwards = { key: "L", name: "billing (rolled 2026-11-25)", createdAt: at(NOW + HOUR) };
  assert.equal(predecessorOf(successor, [older, old, afterwards])?.key, "O");
  assert.equal(predecessorOf(successor, [afterwards]), null);
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
