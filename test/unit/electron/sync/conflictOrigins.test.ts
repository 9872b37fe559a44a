import assert from "node:assert/strict";
import { test } from "node:test";
import { fieldChangeOf, originsAfterMerge } from "../../../../electron/sync/conflictOrigins.ts";
import type { AuditEntryDto } from "../../../../shared/audit.ts";

const entry = (overrides: Partial<AuditEntryDto>): AuditEntryDto => ({
  time: "2026-06-15T12:00:00.000+0000",
  accountKey: "A".repeat(32),
  actor: "owner",
  channel: "desktop",
  action: "update",
  reason: null,
  key: "B".repeat(32),
  changes: {},
  address: null,
  ...overrides,
});

test("a conflicting remote value keeps its origin while it stays the same; a new or changed one is seen now", () => {
  const seen = { seenAt: 1, at: 0, by: "team" };
  const before = {
    conflict: { name: "theirs", enabled: false },
    conflictOrigin: { name: seen, enabled: seen },
  };
  assert.deepEqual(
    originsAfterMerge(before, { name: "theirs", enabled: true, allowedIPs: ["10.0.0.1"] }, 9),
    {
      origin: {
        name: seen,
        enabled: { seenAt: 9, at: null, by: null },
        allowedIPs: { seenAt: 9, at: null, by: null },
      },
      fresh: ["enabled", "allowedIPs"],
    },
  );
  assert.deepEqual(originsAfterMerge(before, null, 9), { origin: null, fresh: [] });
  // A conflict kept before origins were: its values are seen now.
  assert.deepEqual(
    originsAfterMerge({ conflict: { name: "theirs" }, conflictOrigin: null }, { name: "theirs" }, 9),
    {
      origin: { name: { seenAt: 9, at: null, by: null } },
      fresh: ["name"],
    },
  );
});

test("who set a field: the newest entry that changed it, not a sync's pull or push", () => {
  const entries = [
    entry({ action: "sync-push", actor: "owner", changes: { name: { old: "a", new: "b" } } }),
    entry({
      action: "disable",
      time: "2026-06-15T11:00:00.000+0000",
      changes: { enabled: { old: true, new: false } },
    }),
    entry({ action: "sync-pull", changes: { name: { old: "x", new: "a" } } }),
    entry({ actor: "ana", time: "2026-06-15T10:00:00.000+0000", changes: { name: { old: null, new: "x" } } }),
  ];
  assert.deepEqual(fieldChangeOf(entries, "name"), { by: "ana", at: Date.UTC(2026, 5, 15, 10) });
  assert.deepEqual(fieldChangeOf(entries, "enabled"), { by: "owner", at: Date.UTC(2026, 5, 15, 11) });
  assert.equal(fieldChangeOf(entries, "validTo"), null);
});
