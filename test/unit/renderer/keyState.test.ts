import assert from "node:assert/strict";
import { test } from "node:test";
import { filterKeys, ipSummary, keyState } from "../../../renderer/src/features/keys/keyState.ts";
import type { ApiKeyView } from "../../../shared/bridge.ts";

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

test("the window's bounds themselves are inside it (offsets taken into account)", () => {
  const window = {
    enabled: true,
    validFrom: "2026-06-15T14:00:00.000+0200",
    validTo: "2026-06-15T12:00:00.000Z",
  };
  assert.equal(keyState(window, NOW), "enabled");
});

test("the IP summary names the first entry and counts the rest", () => {
  assert.equal(ipSummary(undefined), "Any IP");
  assert.equal(ipSummary([]), "Any IP");
  assert.equal(ipSummary(["10.0.0.0/8"]), "10.0.0.0/8");
  assert.equal(ipSummary(["10.0.0.1", "::1", "192.168.0.0/16"]), "10.0.0.1 +2 more");
});

function view(name: string, enabled: boolean, permissions: ApiKeyView["permissions"]): ApiKeyView {
  return { name, enabled, permissions, key: name, accountKey: "A", publicApiKeyHint: "abc…def" };
}

test("filters combine enabled state, permission and a case-insensitive name substring", () => {
  const keys = [
    view("Alpha prod", true, ["ALL"]),
    view("beta", false, ["TFA"]),
    view("ALPHA 2fa", true, ["TFA"]),
  ];
  const names = (f: Parameters<typeof filterKeys>[1]) => filterKeys(keys, f).map((k) => k.name);
  assert.deepEqual(names({ enabled: "all", permission: "any", name: "" }), [
    "Alpha prod",
    "beta",
    "ALPHA 2fa",
  ]);
  assert.deepEqual(names({ enabled: "disabled", permission: "any", name: "" }), ["beta"]);
  assert.deepEqual(names({ enabled: "all", permission: "TFA", name: "" }), ["beta", "ALPHA 2fa"]);
  assert.deepEqual(names({ enabled: "enabled", permission: "any", name: " alpha " }), [
    "Alpha prod",
    "ALPHA 2fa",
  ]);
  assert.deepEqual(names({ enabled: "enabled", permission: "ALL", name: "2fa" }), []);
});
