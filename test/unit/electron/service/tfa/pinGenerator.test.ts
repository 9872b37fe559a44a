import assert from "node:assert/strict";
import { test } from "node:test";
import { generatePin, PIN_ALPHABETS } from "../../../../../electron/service/tfa/pinGenerator.ts";
import { PIN_TYPES } from "../../../../../shared/tfa.ts";

test("each pinType draws from its documented alphabet", () => {
  assert.equal(PIN_ALPHABETS.NUMERIC, "0123456789");
  assert.equal(PIN_ALPHABETS.ALPHA, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
  assert.equal(PIN_ALPHABETS.HEX, "0123456789ABCDEF");
  assert.equal(PIN_ALPHABETS.ALPHANUMERIC, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ");
});

test("a PIN has exactly the template's length, for every type and every allowed length", () => {
  for (const type of PIN_TYPES) {
    for (let length = 1; length <= 16; length++) {
      const pin = generatePin(type, length);
      assert.equal(pin.length, length, `${type} ${length}`);
      for (const character of pin) assert.ok(PIN_ALPHABETS[type].includes(character), `${type}: ${pin}`);
    }
  }
});

test("characters are picked with the random index given, one draw per character", () => {
  const draws: number[] = [];
  const sequence = [0, 9, 3, 25, 35];
  const randomIndex = (size: number) => {
    draws.push(size);
    return (sequence[draws.length - 1] as number) % size;
  };
  assert.equal(generatePin("ALPHANUMERIC", 5, randomIndex), "093PZ");
  assert.deepEqual(draws, [36, 36, 36, 36, 36]);
  assert.equal(
    generatePin("NUMERIC", 2, () => 0),
    "00",
    "a NUMERIC PIN may start with 0",
  );
  assert.equal(
    generatePin("HEX", 3, (size) => size - 1),
    "FFF",
  );
  assert.equal(
    generatePin("ALPHA", 2, (size) => size - 1),
    "ZZ",
  );
});

test("with the OS random source every character of an alphabet turns up", () => {
  for (const type of PIN_TYPES) {
    const seen = new Set(generatePin(type, 2000));
    assert.equal(seen.size, PIN_ALPHABETS[type].length, type);
  }
});

test("consecutive PINs differ (no fixed seed)", () => {
  const pins = new Set(Array.from({ length: 50 }, () => generatePin("ALPHANUMERIC", 16)));
  assert.equal(pins.size, 50);
});
