import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  decideVerification,
  type PinState,
  pinMatches,
  resendRefusal,
  statusPinError,
} from "../../../../../electron/service/tfa/pinRules.ts";

const SENT_AT = Date.UTC(2026, 0, 1, 12);
const TTL = 15 * 60_000;
const fresh: PinState = { verified: false, attemptsRemaining: 3, expiresAt: SENT_AT + TTL };
const multiple = { allowMultiplePinVerifications: true };
const single = { allowMultiplePinVerifications: false };
/** An injected clock: milliseconds after sending. */
const at = (ms: number) => SENT_AT + ms;

describe("decideVerification", () => {
  test("the right PIN before expiry verifies, keeps the attempts and records when", () => {
    assert.deepEqual(decideVerification(fresh, multiple, true, at(1000)), {
      verified: true,
      attemptsRemaining: 3,
      next: { ...fresh, verified: true, verifiedAt: at(1000) },
    });
  });

  test("a wrong PIN answers WRONG_PIN and stores one attempt less", () => {
    assert.deepEqual(decideVerification(fresh, multiple, false, at(1000)), {
      verified: false,
      attemptsRemaining: 2,
      pinError: "WRONG_PIN",
      next: { ...fresh, attemptsRemaining: 2 },
    });
  });

  test("the last wrong attempt answers WRONG_PIN with 0 left; then even the right PIN is NO_MORE_PIN_ATTEMPTS", () => {
    const last = decideVerification({ ...fresh, attemptsRemaining: 1 }, multiple, false, at(1));
    assert.equal(last.pinError, "WRONG_PIN");
    assert.equal(last.attemptsRemaining, 0);
    const after = decideVerification(last.next as PinState, multiple, true, at(2));
    assert.deepEqual(after, { verified: false, attemptsRemaining: 0, pinError: "NO_MORE_PIN_ATTEMPTS" });
  });

  test("the PIN expires exactly at expiresAt: TTL_EXPIRED, and no attempt is used", () => {
    assert.equal(decideVerification(fresh, multiple, true, at(TTL - 1)).verified, true);
    const expired = decideVerification(fresh, multiple, true, at(TTL));
    assert.deepEqual(expired, { verified: false, attemptsRemaining: 3, pinError: "TTL_EXPIRED" });
    assert.deepEqual(decideVerification(fresh, multiple, false, at(TTL + 60_000)), expired);
  });

  test("used-up attempts are reported before expiry", () => {
    const usedUp = { ...fresh, attemptsRemaining: 0 };
    assert.equal(decideVerification(usedUp, multiple, true, at(TTL * 2)).pinError, "NO_MORE_PIN_ATTEMPTS");
  });

  test("a verified PIN verifies again only when the application allows it, without changing anything", () => {
    const verified = { ...fresh, verified: true };
    assert.deepEqual(decideVerification(verified, multiple, true, at(5)), {
      verified: true,
      attemptsRemaining: 3,
    });
    assert.deepEqual(decideVerification(verified, single, true, at(5)), {
      verified: false,
      attemptsRemaining: 3,
      pinError: "NO_MORE_PIN_ATTEMPTS",
    });
    assert.deepEqual(decideVerification(verified, single, false, at(5)).next, undefined, "no attempt used");
  });

  test("a wrong PIN after verification, where allowed, uses an attempt but does not unverify", () => {
    const decision = decideVerification({ ...fresh, verified: true }, multiple, false, at(5));
    assert.equal(decision.verified, false);
    assert.equal(decision.pinError, "WRONG_PIN");
    assert.deepEqual(decision.next, { ...fresh, verified: true, attemptsRemaining: 2 });
  });
});

describe("statusPinError", () => {
  test("reports the state now: nothing while pending or verified, else why it can no longer verify", () => {
    assert.equal(statusPinError(fresh, at(0)), undefined);
    assert.equal(statusPinError({ ...fresh, verified: true }, at(TTL * 2)), undefined);
    assert.equal(statusPinError(fresh, at(TTL)), "TTL_EXPIRED");
    assert.equal(statusPinError({ ...fresh, attemptsRemaining: 0 }, at(0)), "NO_MORE_PIN_ATTEMPTS");
    assert.equal(statusPinError({ ...fresh, attemptsRemaining: 0 }, at(TTL)), "NO_MORE_PIN_ATTEMPTS");
  });
});

describe("resendRefusal", () => {
  test("a PIN that can still be verified may be resent", () => {
    assert.equal(resendRefusal(fresh, single, at(TTL - 1)), undefined);
    assert.equal(resendRefusal({ ...fresh, verified: true }, multiple, at(1)), undefined);
  });

  test("an expired, used-up or (where re-verification is off) verified PIN may not", () => {
    assert.match(resendRefusal(fresh, single, at(TTL)) as string, /expired/);
    assert.match(resendRefusal({ ...fresh, attemptsRemaining: 0 }, single, at(1)) as string, /attempts/);
    assert.match(resendRefusal({ ...fresh, verified: true }, single, at(1)) as string, /verified/);
  });
});

describe("pinMatches", () => {
  test("NUMERIC PINs match exactly", () => {
    assert.equal(pinMatches("0123", "0123", "NUMERIC"), true);
    assert.equal(pinMatches("0123", "123", "NUMERIC"), false);
    assert.equal(pinMatches("0123", "01234", "NUMERIC"), false);
    assert.equal(pinMatches("0123", " 0123", "NUMERIC"), false);
  });

  test("PINs with letters match ignoring case", () => {
    assert.equal(pinMatches("AB12", "ab12", "ALPHANUMERIC"), true);
    assert.equal(pinMatches("ABCD", "abcd", "ALPHA"), true);
    assert.equal(pinMatches("0F9E", "0f9e", "HEX"), true);
    assert.equal(pinMatches("ABCD", "ABCE", "ALPHA"), false);
  });
});
