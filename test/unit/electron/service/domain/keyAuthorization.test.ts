import assert from "node:assert/strict";
import { test } from "node:test";
import { type KeyGrant, refusalOf } from "../../../../../electron/service/domain/keyAuthorization.ts";

const grant: KeyGrant = {
  key: "0123456789ABCDEF0123456789ABCDEF",
  accountId: 1,
  permissions: ["ALL"],
  allowedIPs: null,
  validFrom: 1_000,
  validTo: 2_000,
  enabled: true,
};
const call = { now: 1_500, clientAddress: "192.0.2.1", tfaMethod: false };

test("an enabled ALL key inside its window, from anywhere, may call anything", () => {
  assert.equal(refusalOf(grant, call), undefined);
  assert.equal(refusalOf({ ...grant, validFrom: null, validTo: null }, { ...call, now: 0 }), undefined);
});

test("the window includes validFrom and excludes validTo", () => {
  assert.equal(refusalOf(grant, { ...call, now: 1_000 }), undefined);
  assert.equal(refusalOf(grant, { ...call, now: 999 })?.reason, "not-yet-valid");
  assert.equal(refusalOf(grant, { ...call, now: 1_999 }), undefined);
  assert.equal(refusalOf(grant, { ...call, now: 2_000 })?.reason, "expired");
});

test("allowedIPs admit only matching callers", () => {
  const restricted = { ...grant, allowedIPs: ["192.0.2.0/24"] };
  assert.equal(refusalOf(restricted, call), undefined);
  assert.equal(refusalOf(restricted, { ...call, clientAddress: "::ffff:192.0.2.9" }), undefined);
  assert.equal(
    refusalOf(restricted, { ...call, clientAddress: "198.51.100.1" })?.reason,
    "address-not-allowed",
  );
});

test("a TFA-only key may call the 2FA methods and nothing else; ALL with TFA may call everything", () => {
  const tfa = { ...grant, permissions: ["TFA"] as const };
  assert.equal(refusalOf(tfa, { ...call, tfaMethod: true }), undefined);
  assert.equal(refusalOf(tfa, call)?.reason, "tfa-only");
  assert.equal(refusalOf({ ...grant, permissions: ["ALL", "TFA"] }, call), undefined);
});

test("disabled is reported before any other rule", () => {
  const everythingWrong = {
    ...grant,
    enabled: false,
    permissions: ["TFA"] as const,
    allowedIPs: ["10.0.0.0/8"],
  };
  assert.equal(refusalOf(everythingWrong, { ...call, now: 5_000 })?.reason, "disabled");
});

test("each refusal names the key and the rule", () => {
  const refusal = refusalOf(grant, { ...call, now: 3_000 });
  assert.match(
    refusal?.text ?? "",
    /0123456789ABCDEF0123456789ABCDEF has expired: its validTo is 1970-01-01T00:00:02\.000\+0000/,
  );
});
