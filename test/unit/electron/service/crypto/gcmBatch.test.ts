import assert from "node:assert/strict";
import { createCipheriv, createSecretKey, type KeyObject, randomBytes, randomInt } from "node:crypto";
import { test } from "node:test";
import {
  gcmBatchOpener,
  type SealedValue,
  UNAUTHENTIC,
} from "../../../../../electron/service/crypto/gcmBatch.ts";
import { createSecretBox } from "../../../../../electron/service/crypto/secretBox.ts";

/** Sealed by node:crypto's own AES-256-GCM, in secretBox's layout: IV ‖ tag ‖ ciphertext. */
function seal(key: KeyObject, plaintext: string, context: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

/** Letters of one to four UTF-8 bytes each. */
const LETTERS = Array.from("aZ09-_é€😀");
const someText = (letters: number) =>
  Array.from({ length: letters }, () => LETTERS[randomInt(LETTERS.length)]).join("");

test("opens what node:crypto's AES-256-GCM sealed: any length of text and context, batches of any size", () => {
  const key = createSecretKey(randomBytes(32));
  const opener = gcmBatchOpener(key);
  for (let round = 0; round < 300; round++) {
    const values = Array.from({ length: 1 + (round % 40) }, () => ({
      plaintext: someText(randomInt(0, 120)),
      context: someText(randomInt(0, 50)),
    }));
    const opened = opener.open(
      values.map((v) => ({ sealed: seal(key, v.plaintext, v.context), context: v.context })),
    );
    assert.deepEqual(
      opened,
      values.map((v) => v.plaintext),
    );
  }
});

test("values ending on and around block boundaries open", () => {
  const key = createSecretKey(randomBytes(32));
  const opener = gcmBatchOpener(key);
  const lengths = [0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 49, 64, 69];
  const values = lengths.map((length) => ({ plaintext: "k".repeat(length), context: "c".repeat(length) }));
  assert.deepEqual(
    opener.open(values.map((v) => ({ sealed: seal(key, v.plaintext, v.context), context: v.context }))),
    values.map((v) => v.plaintext),
  );
});

test("the SecretBox opens a list's values together as decrypt() opens each", () => {
  const box = createSecretBox(randomBytes(32));
  const values = Array.from({ length: 1000 }, (_, index) => ({
    plaintext: `${randomBytes(24).toString("hex")}-${index}`,
    context: randomBytes(16).toString("hex").toUpperCase(),
  }));
  const sealed = values.map((v) => ({ sealed: box.encrypt(v.plaintext, v.context), context: v.context }));
  assert.deepEqual(
    box.decryptMany(sealed),
    sealed.map((v) => box.decrypt(v.sealed, v.context)),
  );
  assert.deepEqual(box.decryptMany([]), []);
});

test("one flipped bit anywhere in one value of a batch (IV, tag or text) opens nothing", () => {
  const key = createSecretKey(randomBytes(32));
  const opener = gcmBatchOpener(key);
  const good: SealedValue[] = Array.from({ length: 5 }, (_, index) => ({
    sealed: seal(key, `publicApiKey-${index}-${"x".repeat(40)}`, `KEY${index}`),
    context: `KEY${index}`,
  }));
  const target = good[2] as SealedValue;
  for (let bit = 0; bit < target.sealed.length * 8; bit++) {
    const forged = Buffer.from(target.sealed);
    forged[bit >> 3] = (forged[bit >> 3] as number) ^ (1 << (bit & 7));
    const batch = good.map((value) => (value === target ? { ...value, sealed: forged } : value));
    assert.throws(() => opener.open(batch), { message: UNAUTHENTIC }, `bit ${bit}`);
  }
  assert.equal(opener.open(good).length, 5);
});

test("a value moved to another row's context, cut short, or sealed with another key does not open", () => {
  const key = createSecretKey(randomBytes(32));
  const opener = gcmBatchOpener(key);
  const sealed = seal(key, "the publicApiKey", "KEY1");
  assert.throws(() => opener.open([{ sealed, context: "KEY2" }]), { message: UNAUTHENTIC });
  assert.throws(() => opener.open([{ sealed: sealed.subarray(0, sealed.length - 1), context: "KEY1" }]), {
    message: UNAUTHENTIC,
  });
  assert.throws(() => opener.open([{ sealed: sealed.subarray(0, 27), context: "KEY1" }]), {
    message: UNAUTHENTIC,
  });
  const other = createSecretKey(randomBytes(32));
  assert.throws(() => gcmBatchOpener(other).open([{ sealed, context: "KEY1" }]), { message: UNAUTHENTIC });
});
