import assert from "node:assert/strict";
import { test } from "node:test";
import {
  retirement,
  successorEndProblem,
  successorRequest,
} from "../../../../../electron/main/core/keyRoll.ts";
import { formatApiDateTime } from "../../../../../shared/datetime.ts";

const NOW = Date.parse("2026-11-25T10:00:00Z");
const HOUR = 3600_000;

const OLD = {
  name: "api",
  key: "A".repeat(32),
  publicApiKey: "secret",
  accountKey: "B".repeat(32),
  permissions: ["TFA" as const],
  allowedIPs: ["10.0.0.0/8"],
  validFrom: "2026-01-01T00:00:00.000+0000",
  validTo: "2027-01-01T00:00:00.000+0000",
  enabled: false,
};

test("the successor takes the old key's name unchanged, its permissions, allowedIPs and start, and the end chosen", () => {
  assert.deepEqual(successorRequest(OLD, "2027-06-01T00:00:00.000+0000"), {
    name: "api",
    permissions: ["TFA"],
    allowedIPs: ["10.0.0.0/8"],
    validFrom: "2026-01-01T00:00:00.000+0000",
    validTo: "2027-06-01T00:00:00.000+0000",
  });
  assert.equal(successorRequest(OLD, null).validTo, undefined, "no end: the old key's is not copied");
});

test("the successor of a key rolled before takes the name without the earlier mark", () => {
  assert.equal(successorRequest({ ...OLD, name: "api (rolled 2026-01-02)" }, null).name, "api");
});

test("the successor's end must be in the future", () => {
  assert.equal(successorEndProblem(null, NOW), null);
  assert.equal(successorEndProblem(formatApiDateTime(NOW + HOUR), NOW), null);
  assert.match(successorEndProblem(formatApiDateTime(NOW), NOW) ?? "", /is not in the future/);
  assert.match(successorEndProblem(formatApiDateTime(NOW - HOUR), NOW) ?? "", /is not in the future/);
});

test("the old key is renamed with the second of the roll in the same update that ends it at now + grace", () => {
  assert.deepEqual(retirement({ name: "billing" }, NOW + 24 * HOUR, NOW), {
    name: "billing (rolled 2026-11-25 10:00:00 UTC)",
    validTo: formatApiDateTime(NOW + 24 * HOUR),
    shortened: true,
  });
  const later = formatApiDateTime(NOW + 48 * HOUR);
  assert.deepEqual(retirement({ name: "billing", validTo: later }, NOW + 24 * HOUR, NOW), {
    name: "billing (rolled 2026-11-25 10:00:00 UTC)",
    validTo: formatApiDateTime(NOW + 24 * HOUR),
    shortened: true,
  });
});

test("an end already earlier than the grace is kept, the name marked all the same", () => {
  const earlier = formatApiDateTime(NOW + HOUR);
  assert.deepEqual(retirement({ name: "soon", validTo: earlier }, NOW + 24 * HOUR, NOW), {
    name: "soon (rolled 2026-11-25 10:00:00 UTC)",
    validTo: earlier,
    shortened: false,
  });
});

test("a key not valid yet ends just after its start", () => {
  const start = NOW + 72 * HOUR;
  assert.deepEqual(retirement({ name: "later", validFrom: formatApiDateTime(start) }, NOW, NOW), {
    name: "later (rolled 2026-11-25 10:00:00 UTC)",
    validTo: formatApiDateTime(start + 1),
    shortened: true,
  });
});

test("a key rolled again gets a fresh mark instead of a second one", () => {
  const plan = retirement({ name: "billing (rolled 2026-01-02)" }, NOW, NOW);
  assert.equal(plan.name, "billing (rolled 2026-11-25 10:00:00 UTC)");
});
