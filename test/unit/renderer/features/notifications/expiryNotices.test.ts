import assert from "node:assert/strict";
import { test } from "node:test";
import {
  dueExpiryNotices,
  type ExpiringKey,
  localDay,
  type NoticeScope,
  noticeItems,
} from "../../../../../renderer/src/features/notifications/expiryNotices.ts";
import {
  loadNotified,
  saveNotified,
} from "../../../../../renderer/src/features/notifications/notifiedRecord.ts";
import { formatApiDateTime } from "../../../../../shared/datetime.ts";

const DAY = 24 * 3600_000;
const now = new Date(2026, 10, 29, 9, 30).getTime();
const scope: NoticeScope = { profile: "local", profileName: "Local", accountKey: "_", accountName: "owner" };
const ends = (ms: number) => formatApiDateTime(now + ms);
const key = (id: string, fields: Partial<ExpiringKey> = {}): ExpiringKey => ({
  key: id,
  name: `key ${id}`,
  enabled: true,
  validTo: ends(2 * DAY),
  ...fields,
});

const run = (keys: ExpiringKey[], notified: Record<string, string> = {}, at = now, enabled = true) =>
  dueExpiryNotices({ keys, now: at, notified, enabled, scope });

test("only enabled keys in their window that end within 7 days are due", () => {
  const keys = [
    key("A"),
    key("B", { validTo: ends(7 * DAY - 60_000) }),
    key("C", { validTo: ends(7 * DAY + 60_000) }),
    key("D", { enabled: false }),
    key("E", { validTo: ends(-60_000) }),
    key("F", { validTo: undefined }),
    key("G", { validFrom: ends(DAY), validTo: ends(3 * DAY) }),
  ];
  assert.deepEqual(
    run(keys).due.map((due) => due.key),
    ["A", "B"],
  );
});

test("once per key per local day: the same day nothing again, the next day again", () => {
  const first = run([key("A"), key("B")]);
  assert.equal(first.due.length, 2);
  assert.deepEqual(first.notified, { "local _ A": localDay(now), "local _ B": localDay(now) });
  const later = run([key("A"), key("B"), key("C")], first.notified, now + 3600_000);
  assert.deepEqual(
    later.due.map((due) => due.key),
    ["C"],
    "a key entering the window later that day is due, the others not",
  );
  const tomorrow = new Date(2026, 10, 30, 0, 1).getTime();
  const next = run([key("A", { validTo: formatApiDateTime(tomorrow + DAY) })], later.notified, tomorrow);
  assert.deepEqual(
    next.due.map((due) => due.key),
    ["A"],
  );
  assert.deepEqual(next.notified, { "local _ A": localDay(tomorrow) }, "yesterday's entries are dropped");
});

test("the same key id on another profile or account is another key", () => {
  const notified = { "local _ A": localDay(now) };
  assert.equal(run([key("A")], notified).due.length, 0);
  const remote = dueExpiryNotices({
    keys: [key("A")],
    now,
    notified,
    enabled: true,
    scope: { ...scope, profile: "remote-1" },
  });
  assert.equal(remote.due.length, 1);
});

test("none when the setting is off, and nothing is recorded", () => {
  const off = run([key("A")], {}, now, false);
  assert.deepEqual(off.due, []);
  assert.deepEqual(off.notified, {});
});

test("a notification names the key, the account and profile, and when it ends; never a publicApiKey", () => {
  const [item, ...rest] = noticeItems([key("A")], scope, now);
  assert.equal(rest.length, 0);
  assert.equal(item?.title, "API key “key A” expires in 2 days");
  assert.match(item?.body ?? "", /^owner on Local: it ends .*2026/);
  const many = noticeItems([key("A"), key("B", { validTo: ends(DAY) }), key("C"), key("D")], scope, now);
  assert.equal(many.length, 1, "more than three due at once: one notification sums them up");
  assert.equal(many[0]?.title, "4 API keys expire within 7 days");
  assert.equal(many[0]?.body, "owner on Local: “key B”, “key A”, “key C” and 1 more.");
});

test("the record survives as JSON in storage; an unreadable one counts as nothing announced", () => {
  const stored = new Map<string, string>();
  const storage = {
    getItem: (name: string) => stored.get(name) ?? null,
    setItem: (name: string, value: string) => void stored.set(name, value),
  };
  assert.deepEqual(loadNotified(storage), {});
  saveNotified(storage, { "local _ A": "2026-11-29" });
  assert.deepEqual(loadNotified(storage), { "local _ A": "2026-11-29" });
  stored.set("keydesk.expiryNotified", "{not json");
  assert.deepEqual(loadNotified(storage), {});
  stored.set("keydesk.expiryNotified", JSON.stringify({ a: 1, b: "2026-11-29" }));
  assert.deepEqual(loadNotified(storage), { b: "2026-11-29" });
});
