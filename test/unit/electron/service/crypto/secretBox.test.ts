import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { createSecretBox } from "../../../../../electron/service/crypto/secretBox.ts";

const secret = "0123456789abcdef0123456789abcdef-01234567-89ab-4def-8123-456789abcdef";

test("seals and opens a value; the sealed bytes do not contain it", () => {
  const box = createSecretBox(randomBytes(32));
  const sealed = box.encrypt(secret, "KEY1");
  assert.ok(!sealed.includes(Buffer.from(secret)));
  assert.equal(box.decrypt(sealed, "KEY1"), secret);
});

test("sealing the same value twice gives different bytes (random IV)", () => {
  const box = createSecretBox(randomBytes(32));
  assert.notDeepEqual(box.encrypt(secret, "K"), box.encrypt(secret, "K"));
});

test("a value sealed for one row cannot be opened as another row's", () => {
  const box = createSecretBox(randomBytes(32));
  assert.throws(() => box.decrypt(box.encrypt(secret, "KEY1"), "KEY2"));
});

test("tampered bytes or another data key are detected, never decrypted to garbage", () => {
  const box = createSecretBox(randomBytes(32));
  const sealed = box.encrypt(secret, "K");
  const tampered = Buffer.from(sealed);
  tampered[tampered.length - 1] = (tampered[tampered.length - 1] as number) ^ 1;
  assert.throws(() => box.decrypt(tampered, "K"));
  assert.throws(() => createSecretBox(randomBytes(32)).decrypt(sealed, "K"));
});

test("the digest is stable for one data key and differs between keys; so does the check value", () => {
  const key = randomBytes(32);
  const a = createSecretBox(key);
  const b = createSecretBox(Buffer.from(key));
  const other = createSecretBox(randomBytes(32));
  assert.deepEqual(a.digest(secret), b.digest(secret));
  assert.notDeepEqual(a.digest(secret), other.digest(secret));
  assert.equal(a.checkValue, b.checkValue);
  assert.notEqual(a.checkValue, other.checkValue);
});

test("refuses a data key of the wrong size", () => {
  assert.throws(() => createSecretBox(randomBytes(16)), /32 bytes/);
});
