import assert from "node:assert/strict";
import { test } from "node:test";
import type { StoredApiKey } from "../../../../../electron/service/domain/apiKeyRecords.ts";
import {
  channelOf,
  fieldChanges,
  keyCreatedEntry,
  keyUpdatedEntry,
  reasonOf,
} from "../../../../../electron/service/domain/auditEntries.ts";

/** The audit history's rules: what a change records, and how a client's headers are read. */

const key: StoredApiKey = {
  id: 1,
  key: "0123456789ABCDEF0123456789ABCDEF",
  publicApiKey: "0123456789abcdef0123456789abcdef-00000000-0000-4000-8000-000000000000",
  accountId: 7,
  accountKey: "FEDCBA9876543210FEDCBA9876543210",
  name: "billing",
  allowedIPs: null,
  permissions: ["ALL"],
  validFrom: null,
  validTo: Date.parse("2031-01-01T00:00:00Z"),
  enabled: true,
  createdAt: Date.parse("2026-01-01T00:00:00Z"),
};
const origin = { actor: "owner", channel: "api" as const, address: "127.0.0.1", reason: null };

test("Keydesk-Client names the channel; absent, repeated or unknown is api", () => {
  assert.equal(channelOf("desktop"), "desktop");
  assert.equal(channelOf(" SYNC "), "sync");
  assert.equal(channelOf("cli"), "cli");
  assert.equal(channelOf(undefined), "api");
  assert.equal(channelOf("curl"), "api");
  assert.equal(channelOf(["desktop", "sync"]), "api");
  assert.equal(channelOf("desktop, desktop"), "api");
});

test("Keydesk-Action gives a reason only when it is rotate or bulk", () => {
  assert.equal(reasonOf("rotate"), "rotate");
  assert.equal(reasonOf("bulk"), "bulk");
  assert.equal(reasonOf("delete"), null);
  assert.equal(reasonOf(undefined), null);
});

test("a create records every field it set, times in the API's format, never the publicApiKey", () => {
  const entry = keyCreatedEntry(key, origin, 1_000);
  assert.equal(entry.action, "create");
  assert.deepEqual(entry.changes, {
    name: { old: null, new: "billing" },
    permissions: { old: null, new: ["ALL"] },
    validTo: { old: null, new: "2031-01-01T00:00:00.000+0000" },
    enabled: { old: null, new: true },
  });
  assert.equal(JSON.stringify(entry).includes(key.publicApiKey), false);
  assert.equal(keyCreatedEntry(key, { ...origin, reason: "rotate" }, 1_000).action, "rotate");
});

test("an update records only the fields that changed; enabled makes it enable or disable", () => {
  const renamed = keyUpdatedEntry(key, { ...key, name: "ledger", allowedIPs: ["10.0.0.0/8"] }, origin, 2);
  assert.equal(renamed?.action, "update");
  assert.deepEqual(renamed?.changes, {
    name: { old: "billing", new: "ledger" },
    allowedIPs: { old: null, new: ["10.0.0.0/8"] },
  });
  assert.equal(keyUpdatedEntry(key, { ...key, enabled: false }, origin, 2)?.action, "disable");
  const enabledAgain = keyUpdatedEntry({ ...key, enabled: false }, key, { ...origin, reason: "bulk" }, 2);
  assert.deepEqual([enabledAgain?.action, enabledAgain?.reason], ["enable", "bulk"]);
  const rolled = keyUpdatedEntry(key, { ...key, validTo: 5_000 }, { ...origin, reason: "rotate" }, 2);
  assert.equal(rolled?.action, "rotate");
});

test("an update that changes nothing (or only the publicApiKey) records nothing", () => {
  assert.equal(keyUpdatedEntry(key, { ...key }, origin, 2), null);
  const replaced: StoredApiKey = { ...key, publicApiKey: "another" };
  assert.equal(keyUpdatedEntry(key, replaced, origin, 2), null);
  assert.deepEqual(fieldChanges(key, { ...key, permissions: ["ALL"] }), {});
});
