import assert from "node:assert/strict";
import { test } from "node:test";
import {
  formatLocal,
  formatPast,
  formatRelative,
  localDayAndTime,
  zoneName,
} from "../../../renderer/src/time.ts";

const NOW = Date.UTC(2026, 10, 25, 16, 27, 29);

test("formatLocal writes the local time of the zone, with the zone", () => {
  assert.equal(formatLocal(NOW, { timeZone: "Europe/Zurich", locale: "en-GB" }), "25 Nov 2026, 17:27:29 CET");
  assert.equal(formatLocal(NOW, { timeZone: "UTC", locale: "en-GB" }), "25 Nov 2026, 16:27:29 UTC");
  assert.equal(
    formatLocal(new Date(NOW), { timeZone: "America/New_York", locale: "en-US" }),
    "Nov 25, 2026, 11:27:29 AM EST",
  );
});

test("zoneName is the zone's short name at that instant (summer time included)", () => {
  assert.equal(zoneName(NOW, { timeZone: "Europe/Zurich", locale: "en-GB" }), "CET");
  assert.equal(zoneName(Date.UTC(2026, 6, 1), { timeZone: "Europe/Zurich", locale: "en-GB" }), "CEST");
});

test("formatRelative says how far, before or after now", () => {
  const at = (seconds: number) => NOW + seconds * 1000;
  assert.equal(formatRelative(at(2), NOW), "just now");
  assert.equal(formatRelative(at(-30), NOW), "30 s ago");
  assert.equal(formatRelative(at(-120), NOW), "2 min ago");
  assert.equal(formatRelative(at(3 * 3600), NOW), "in 3 h");
  assert.equal(formatRelative(at(5 * 86_400), NOW), "in 5 days");
  assert.equal(formatRelative(at(-86_400), NOW), "1 day ago");
  assert.equal(formatRelative(at(90 * 86_400), NOW), "in 3 months");
  assert.equal(formatRelative(new Date(at(-400 * 86_400)), new Date(NOW)), "1 year ago");
});

test("formatRelative never says a count that is the next unit's: 24 h is 1 day, 60 min is 1 h", () => {
  const at = (seconds: number) => NOW + seconds * 1000;
  // A key rolled with 24 hours' grace, a few seconds later: as a day ahead as one a second past it.
  assert.equal(formatRelative(at(86_400 - 5), NOW), "in 1 day");
  assert.equal(formatRelative(at(86_400 + 5), NOW), "in 1 day");
  assert.equal(formatRelative(at(23.5 * 3600 - 1), NOW), "in 23 h");
  assert.equal(formatRelative(at(-(3600 - 10)), NOW), "1 h ago");
  assert.equal(formatRelative(at(59 * 60), NOW), "in 59 min");
  assert.equal(formatRelative(at(350 * 86_400), NOW), "in 1 year");
  assert.equal(formatRelative(at(340 * 86_400), NOW), "in 11 months");
});

test("localDayAndTime: the day (with the year when it is not this year's) and the time to the second", () => {
  const zurich = { timeZone: "Europe/Zurich", locale: "en-GB" };
  assert.deepEqual(localDayAndTime(NOW - 3600_000, NOW, zurich), { day: "25 Nov", time: "16:27:29" });
  assert.deepEqual(localDayAndTime(NOW - 86_400_000, NOW, zurich), { day: "24 Nov", time: "17:27:29" });
  assert.deepEqual(localDayAndTime(NOW - 400 * 86_400_000, NOW, zurich), {
    day: "21 Oct 2025",
    time: "18:27:29",
  });
});

test("formatPast never puts a past event in the future: a time a little ahead of now is just now", () => {
  const at = (seconds: number) => NOW + seconds * 1000;
  assert.equal(formatPast(at(55), NOW), "just now");
  assert.equal(formatPast(at(-120), NOW), "2 min ago");
});
