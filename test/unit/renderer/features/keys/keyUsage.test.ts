import assert from "node:assert/strict";
import { test } from "node:test";
import {
  CREATED_NOT_REPORTED,
  createdText,
  lastUsedText,
  refusalsInWords,
  USAGE_NOT_REPORTED,
  unusedFor,
} from "../../../../../renderer/src/features/keys/keyUsage.ts";
import type { ApiKeyView } from "../../../../../shared/bridge.ts";

const NOW = Date.parse("2026-11-25T12:00:00Z");
const none = { disabled: 0, "not-yet-valid": 0, expired: 0, "address-not-allowed": 0, "tfa-only": 0 };
const base: ApiKeyView = {
  name: "k",
  key: "A".repeat(32),
  accountKey: "B".repeat(32),
  permissions: ["ALL"],
  enabled: true,
  publicApiKeyHint: "abcdef…1234",
};
const usage = (lastUsedAt: string | null) => ({
  lastUsedAt,
  lastUsedFrom: lastUsedAt && "10.0.0.7",
  lastRefusedAt: null,
  lastRefusedFrom: null,
  total: { allowed: 3, refused: { ...none, disabled: 2, "address-not-allowed": 1 } },
  last24Hours: { allowed: 1, refused: none },
});

test("Last used: never, a relative time with time and address on hover, or — where the service does not report it", () => {
  assert.equal(lastUsedText({ ...base, usage: usage(null) }, NOW).text, "never");
  const recent = lastUsedText({ ...base, usage: usage("2026-11-25T11:57:00.000+0000") }, NOW);
  assert.equal(recent.text, "3 min ago");
  assert.match(recent.title, /from 10\.0\.0\.7$/);
  assert.deepEqual(lastUsedText(base, NOW), { text: "—", title: USAGE_NOT_REPORTED });
});

test("Last used of a key whose every call was refused says when the last one was, with the rules, not never", () => {
  const refusedOnly = {
    ...usage(null),
    lastRefusedAt: "2026-11-25T11:58:00.000+0000",
    lastRefusedFrom: "10.9.9.9",
  };
  const cell = lastUsedText({ ...base, usage: refusedOnly }, NOW);
  assert.equal(cell.text, "refused 2 min ago");
  assert.equal(cell.warning, true);
  assert.match(
    cell.title,
    /^No allowed call since usage recording began; 3 refused \(2 while disabled; 1 from an address not allowed\), the last at .* from 10\.9\.9\.9$/,
  );
  assert.equal(
    lastUsedText({ ...base, usage: usage("2026-11-25T11:57:00.000+0000") }, NOW).warning,
    undefined,
  );
});

test("Created: unknown when the service says it is not known, — when it does not report it", () => {
  assert.equal(createdText({ ...base, createdAt: null }, NOW).text, "unknown");
  assert.equal(createdText({ ...base, createdAt: "2026-11-20T12:00:00.000+0000" }, NOW).text, "5 days ago");
  assert.deepEqual(createdText(base, NOW), { text: "—", title: CREATED_NOT_REPORTED });
});

test("refusals are listed by rule in words; a key never used counts as unused", () => {
  assert.equal(refusalsInWords(usage(null).total), "2 while disabled; 1 from an address not allowed");
  assert.equal(refusalsInWords(usage(null).last24Hours), "none");
  assert.equal(unusedFor({ ...base, usage: usage(null) }, 7, NOW), true);
  assert.equal(unusedFor({ ...base, usage: usage("2026-11-24T12:00:00.000+0000") }, 7, NOW), false);
  assert.equal(unusedFor({ ...base, usage: usage("2026-11-01T12:00:00.000+0000") }, 7, NOW), true);
});

test("a key younger than the period is not unused for it; one whose creation is not known may be", () => {
  const never = usage(null);
  assert.equal(
    unusedFor({ ...base, usage: never, createdAt: "2026-11-24T12:00:00.000+0000" }, 7, NOW),
    false,
  );
  assert.equal(unusedFor({ ...base, usage: never, createdAt: "2026-11-18T12:00:00.000+0000" }, 7, NOW), true);
  assert.equal(unusedFor({ ...base, usage: never, createdAt: null }, 7, NOW), true);
});
