import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import sodium from "sodium-native";
import {
  anyFormatOpener,
  legacyGcmOpener,
} from "../../../../../electron/service/crypto/legacySealedValues.ts";
import {
  createSecretBox,
  deriveKey,
  SEALED_FORMAT,
  UnsealError,
} from "../../../../../electron/service/crypto/secretBox.ts";
import { sealLegacy } from "../../../../harness/legacySealing.ts";

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

test("a sealed value is libsodium's XChaCha20-Poly1305: format byte, 24-byte nonce, ciphertext, 16-byte tag", () => {
  const key = randomBytes(32);
  const sealed = createSecretBox(key).encrypt(secret, "KEY1");
  assert.equal(sealed[0], SEALED_FORMAT);
  assert.equal(sealed.length, 1 + 24 + Buffer.byteLength(secret) + 16);
  // Opened with libsodium itself, under the key the box derives for sealing.
  const plain = Buffer.alloc(sealed.length - 41);
  sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(
    plain,
    null,
    sealed.subarray(25),
    Buffer.from("KEY1"),
    sealed.subarray(1, 25),
    deriveKey(key, "sealed-values/xchacha20poly1305"),
  );
  assert.equal(plain.toString(), secret);
});

test("a GCM value with a tag shorter than 16 bytes opens nowhere (the box and the legacy opener refuse it)", () => {
  const key = randomBytes(32);
  const box = createSecretBox(key);
  const legacy = legacyGcmOpener(key);
  for (const tagBytes of [4, 8, 12, 13, 14, 15]) {
    // An empty plaintext: 12-byte IV and the short tag, 16 to 27 bytes, read as IV ‖ tag before.
    const sealed = sealLegacy(key, "", "K", tagBytes);
    assert.throws(() => box.decrypt(sealed, "K"), UnsealError, `${tagBytes}-byte tag, box`);
    assert.throws(() => legacy(sealed, "K"), UnsealError, `${tagBytes}-byte tag, legacy opener`);
  }
});

test("values sealed before libsodium open only through the upgrade's opener, and only untampered", () => {
  const key = randomBytes(32);
  const box = createSecretBox(key);
  const sealed = sealLegacy(key, secret, "K");
  assert.throws(() => box.decrypt(sealed, "K"), UnsealError, "the box reads its own format only");
  assert.equal(legacyGcmOpener(key)(sealed, "K"), secret);
  assert.throws(() => legacyGcmOpener(key)(sealed, "OTHER"), UnsealError);
  const tampered = Buffer.from(sealed);
  tampered[20] = (tampered[20] as number) ^ 1;
  assert.throws(() => legacyGcmOpener(key)(tampered, "K"), UnsealError);
  const either = anyFormatOpener(box, key);
  assert.deepEqual(either(sealed, "K"), { plaintext: secret, current: false });
  assert.deepEqual(either(box.encrypt(secret, "K"), "K"), { plaintext: secret, current: true });
});

test("a legacy value whose IV begins with the format byte is still read as legacy", () => {
  const key = randomBytes(32);
  let sealed = sealLegacy(key, secret, "K");
  while (sealed[0] !== SEALED_FORMAT) sealed = sealLegacy(key, secret, "K");
  assert.deepEqual(anyFormatOpener(createSecretBox(key), key)(sealed, "K"), {
    plaintext: secret,
    current: false,
  });
});

test("a batch with one forged value opens none", () => {
  const box = createSecretBox(randomBytes(32));
  const seal = (context: string) => ({ sealed: box.encrypt(`${secret}${context}`, context), context });
  const [first, second, third] = [seal("A"), seal("B"), seal("C")];
  assert.deepEqual(box.decryptMany([first, second, third]), [`${secret}A`, `${secret}B`, `${secret}C`]);
  const forged = Buffer.from(second.sealed);
  forged[30] = (forged[30] as number) ^ 0x80;
  assert.throws(() => box.decryptMany([first, { sealed: forged, context: "B" }, third]), UnsealError);
});

test("a value cut short or of another format is refused, not read past its end", () => {
  const box = createSecretBox(randomBytes(32));
  const sealed = box.encrypt(secret, "K");
  for (const length of [0, 1, 25, 40])
    assert.throws(() => box.decrypt(sealed.subarray(0, length), "K"), UnsealError);
  const otherFormat = Buffer.from(sealed);
  otherFormat[0] = 0x03;
  assert.throws(() => box.decrypt(otherFormat, "K"), UnsealError);
});

test("a value read as hex text opens like its bytes, and only a whole, untampered value bound to its row", () => {
  const box = createSecretBox(randomBytes(32));
  const short = box.encrypt("short", "K1");
  const long = box.encrypt(secret, "K2");
  // Values of different lengths in turn: each opens with the views kept for its own length.
  for (let round = 0; round < 2; round++) {
    assert.equal(box.decryptHex(long.toString("hex"), "K2"), secret);
    assert.equal(box.decryptHex(short.toString("hex"), "K1"), "short");
    assert.equal(box.decryptHex(long.toString("hex").toUpperCase(), "K2"), secret);
  }
  const hex = long.toString("hex");
  for (const bad of [
    hex.slice(0, -1), // an odd count of digits
    `${hex.slice(0, 100)}zz${hex.slice(102)}`, // not hex
    hex.slice(0, 2 * 40), // shorter than the format's overhead
    `03${hex.slice(2)}`, // another format
    `${hex.slice(0, 60)}${hex[60] === "0" ? "1" : "0"}${hex.slice(61)}`, // tampered
  ]) {
    assert.throws(() => box.decryptHex(bad, "K2"), UnsealError);
  }
  assert.throws(() => box.decryptHex(hex, "K1"), UnsealError);
  assert.equal(box.decryptHex(hex, "K2"), secret);
});
