import assert from "node:assert/strict";
import { test } from "node:test";
import { retirement, rolledName, successorRequest } from "../../../../../electron/main/core/keyRoll.ts";
import { NAME_MAX_LENGTH } from "../../../../../shared/apiKeys.ts";
import { formatApiDateTime } from "../../../../../shared/datetime.ts";

const NOW = Date.parse("2026-11-25T10:00:00Z");
const HOUR = 3600_000;

test("the successor's name is the old one with the day of the roll, a second roll replacing the suffix", () => {
  assert.equal(rolledName("billing", NOW), "billing (rolled 2026-11-25)");
  assert.equal(rolledName("billing (rolled 2026-01-02)", NOW), "billing (rolled 2026-11-25)");
});

test("a name at the length limit is cut (by characters, not bytes) so that the suffix fits", () => {
  const long = "ключ".repeat(64);
  const name = rolledName(long, NOW);
  assert.equal([...name].length, NAME_MAX_LENGTH);
  assert.ok(name.endsWith(" (rolled 2026-11-25)"));
});

test("the successor copies permissions, allowedIPs and the validity window, nothing else", () => {
  const request = successorRequest(
    {
      name: "api",
      key: "A".repeat(32),
      publicApiKey: "secret",
      accountKey: "B".repeat(32),
      permissions: ["TFA"],
      allowedIPs: ["10.0.0.0/8"],
      validFrom: "2026-01-01T00:00:00.000+0000",
      validTo: "2027-01-01T00:00:00.000+0000",
      enabled: false,
    },
    NOW,
  );
  assert.deepEqual(request, {
    name: "api (rolled 2026-11-25)",
    permissions: ["TFA"],
    allowedIPs: ["10.0.0.0/8"],
    validFrom: "2026-01-01T00:00:00.000+0000",
    validTo: "2027-01-01T00:00:00.000+0000",
  });
});

test("the old key ends at now + grace, never later than its own end, and after its start", () => {
  assert.deepEqual(retirement({}, NOW + 24 * HOUR), { validTo: formatApiDateTime(NOW + 24 * HOUR) });
  const earlier = formatApiDateTime(NOW + HOUR);
  assert.deepEqual(retirement({ validTo: earlier }, NOW + 24 * HOUR), { unchanged: earlier });
  const later = formatApiDateTime(NOW + 48 * HOUR);
  assert.deepEqual(retirement({ validTo: later }, NOW + 24 * HOUR), {
    validTo: formatApiDateTime(NOW + 24 * HOUR),
  });
  const start = NOW + 72 * HOUR;
  assert.deepEqual(retirement({ validFrom: formatApiDateTime(start) }, NOW), {
    validTo: formatApiDateTime(start + 1),
  });
});
