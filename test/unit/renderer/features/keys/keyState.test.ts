import assert from "node:assert/strict";
import { test } from "node:test";
import {
  expiringSoon,
  filterKeys,
  ipSummary,
  keyState,
  nameNeedle,
  retiringText,
  stateExplanation,
  validToText,
} from "../../../../../renderer/src/features/keys/keyState.ts";
import type { ApiKeyView } from "../../../../../shared/bridge.ts";
import { formatApiDateTime } from "../../../../../shared/datetime.ts";

const NOW = Date.parse("2026-06-15T12:00:00.000Z");

test("a disabled key is disabled whatever its validity window", () => {
  assert.equal(keyState({ enabled: false }, NOW), "disabled");
  assert.equal(keyState({ enabled: false, validTo: "2020-01-01T00:00:00.000+0000" }, NOW), "disabled");
});

test("an enabled key without a validity window is enabled", () => {
  assert.equal(keyState({ enabled: true }, NOW), "enabled");
});

test("an enabled key whose validFrom lies ahead is not yet valid", () => {
  assert.equal(keyState({ enabled: true, validFrom: "2026-06-15T12:00:00.001+0000" }, NOW), "not-yet-valid");
  assert.equal(keyState({ enabled: true, validFrom: "2026-06-15T14:00:00.000+0100" }, NOW), "not-yet-valid");
});

test("an enabled key whose validTo has passed is expired", () => {
  assert.equal(keyState({ enabled: true, validTo: "2026-06-15T11:59:59.999+0000" }, NOW), "expired");
});

test("validFrom is inside the window and validTo is not, as App authorization decides (offsets taken into account)", () => {
  assert.equal(keyState({ enabled: true, validFrom: "2026-06-15T14:00:00.000+0200" }, NOW), "enabled");
  // The service refuses a key from its validTo on (403 "has expired"): the row must not say Enabled.
  assert.equal(keyState({ enabled: true, validTo: "2026-06-15T12:00:00.000Z" }, NOW), "expired");
  assert.equal(keyState({ enabled: true, validTo: "2026-06-15T12:00:00.001Z" }, NOW), "enabled");
});

test("expiring soon: enabled and validTo less than 7 days away", () => {
  const inDays = (days: number) => new Date(NOW + days * 24 * 3600_000).toISOString().replace("Z", "+0000");
  assert.equal(expiringSoon({ enabled: true, validTo: inDays(6.9) }, NOW), true);
  assert.equal(expiringSoon({ enabled: true, validTo: inDays(7) }, NOW), false);
  assert.equal(expiringSoon({ enabled: false, validTo: inDays(1) }, NOW), false, "disabled wins");
  assert.equal(expiringSoon({ enabled: true, validTo: inDays(-1) }, NOW), false, "already expired");
  assert.equal(expiringSoon({ enabled: true }, NOW), false);
});

test("the Valid to column in words", () => {
  const inDays = (days: number) => new Date(NOW + days * 24 * 3600_000).toISOString().replace("Z", "+0000");
  assert.equal(validToText({ enabled: true }, NOW), "—");
  assert.equal(validToText({ enabled: true, validTo: inDays(5) }, NOW), "expires in 5 days");
  assert.equal(validToText({ enabled: true, validTo: inDays(-2) }, NOW), "expired 2 days ago");
  assert.equal(validToText({ enabled: false, validTo: inDays(1 / 24) }, NOW), "expires in 1 h");
});

test("the state explained names the rule the service refuses calls by", () => {
  assert.match(stateExplanation({ enabled: false }, NOW), /403 FORBIDDEN.*disabled/);
  assert.match(
    stateExplanation({ enabled: true, validTo: "2026-06-14T12:00:00.000+0000" }, NOW),
    /^Expired .*1 day ago|yesterday.*has expired/,
  );
  assert.match(
    stateExplanation({ enabled: true, validFrom: "2026-06-20T12:00:00.000+0000" }, NOW),
    /not valid yet.*in 5 days/,
  );
  assert.match(stateExplanation({ enabled: true }, NOW), /does not expire/);
});

test("the IP summary names the first entry and counts the rest", () => {
  assert.equal(ipSummary(undefined), "Any IP");
  assert.equal(ipSummary([]), "Any IP");
  assert.equal(ipSummary(["10.0.0.0/8"]), "10.0.0.0/8");
  assert.equal(ipSummary(["10.0.0.1", "::1", "192.168.0.0/16"]), "10.0.0.1 +2 more");
});

function view(
  name: string,
  enabled: boolean,
  permissions: ApiKeyView["permissions"],
  validTo?: string,
): ApiKeyView {
  return {
    name,
    enabled,
    permissions,
    key: name,
    accountKey: "A",
    publicApiKeyHint: "abc…def",
    ...(validTo && { validTo }),
  };
}

test("filters combine state, permission and a case-insensitive name substring", () => {
  const keys = [
    view("Alpha prod", true, ["ALL"]),
    view("beta", false, ["TFA"]),
    view("ALPHA 2fa", true, ["TFA"]),
    view("gone", true, ["ALL"], "2026-06-01T00:00:00.000+0000"),
    view("soon", true, ["ALL"], "2026-06-17T00:00:00.000+0000"),
  ];
  const names = (f: Parameters<typeof filterKeys>[1]) => filterKeys(keys, f, NOW).map((k) => k.name);
  // An enabled key past its validTo is Expired, not Enabled.
  assert.deepEqual(names({ state: "enabled", permission: "any", name: "" }), [
    "Alpha prod",
    "ALPHA 2fa",
    "soon",
  ]);
  assert.deepEqual(names({ state: "expired", permission: "any", name: "" }), ["gone"]);
  assert.deepEqual(names({ state: "expiring-soon", permission: "any", name: "" }), ["soon"]);
  keys.splice(3, 2);
  assert.deepEqual(names({ state: "all", permission: "any", name: "" }), ["Alpha prod", "beta", "ALPHA 2fa"]);
  assert.deepEqual(names({ state: "disabled", permission: "any", name: "" }), ["beta"]);
  assert.deepEqual(names({ state: "all", permission: "TFA", name: "" }), ["beta", "ALPHA 2fa"]);
  assert.deepEqual(names({ state: "enabled", permission: "any", name: " alpha " }), [
    "Alpha prod",
    "ALPHA 2fa",
  ]);
  assert.deepEqual(names({ state: "enabled", permission: "ALL", name: "2fa" }), []);
});

test("a key whose name carries a roll's mark is retiring until its end, whoever rolled it; then expired", () => {
  const NOW_ = Date.parse("2026-11-25T10:00:00Z");
  const in23h = formatApiDateTime(NOW_ + 23 * 3600_000);
  const rolled = { enabled: true, name: "billing (rolled 2026-11-25)", validTo: in23h };
  assert.equal(validToText(rolled, NOW_), "retiring in 23 h");
  assert.equal(retiringText(NOW_ + 23 * 3600_000, NOW_), "retiring in 23 h", "the one wording");
  assert.match(
    stateExplanation(rolled, NOW_),
    /; retiring in 23 h \(it was rolled: its successor replaces it\)\.$/,
  );
  assert.match(stateExplanation({ ...rolled, name: "billing" }, NOW_), /; it expires in 23 h/);
  assert.equal(validToText(rolled, NOW_ + 24 * 3600_000), "expired 1 h ago");
  assert.equal(validToText({ ...rolled, name: "billing" }, NOW_), "expires in 23 h", "its successor");
  assert.equal(validToText({ ...rolled, name: "billing (rolled soon)" }, NOW_), "expires in 23 h");
});

test("the search narrows names by a long name without spaces too (it may be a publicApiKey as well), never by a key id or a hint", () => {
  assert.equal(nameNeedle(" data-export-prod-dave-019 "), "data-export-prod-dave-019");
  assert.equal(nameNeedle("billing"), "billing");
  assert.equal(nameNeedle("0123456789abcdef0123456789ABCDEF"), "");
  assert.equal(nameNeedle("f87f52…e7fb"), "");
});
