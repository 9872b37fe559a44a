import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { createSecretBox } from "../../../../../electron/service/crypto/secretBox.ts";
import {
  cursorBinding,
  decodeListCursor,
  encodeListCursor,
} from "../../../../../electron/service/domain/listCursor.ts";

/** A list's paging cursor names a row of the list it came from, and of no other list; nobody can read it. */

const seal = createSecretBox(randomBytes(32));
const binding = cursorBinding("keys", 7, { sort: "name", order: "asc", nameContains: "pay" });

test("a cursor gives back its row for the list it came from, whatever the order its query was written in", () => {
  const cursor = encodeListCursor(1234, binding, seal);
  assert.match(cursor, /^c[A-Za-z0-9_-]+$/);
  const same = cursorBinding("keys", 7, {
    nameContains: "pay",
    order: "asc",
    sort: "name",
    state: undefined,
  });
  assert.equal(same, binding);
  assert.equal(decodeListCursor(cursor, same, seal), 1234);
});

test("the row id cannot be read from a cursor, nor told from two cursors of the same row", () => {
  const cursor = encodeListCursor(1234, binding, seal);
  const bytes = Buffer.from(cursor.slice(1), "base64url");
  assert.equal(bytes.indexOf(Buffer.from("1234")), -1);
  assert.notEqual(encodeListCursor(1234, binding, seal), cursor, "a random nonce each time");
  assert.equal(
    encodeListCursor(1, binding, seal).length,
    encodeListCursor(9_000_000_000_000_000, binding, seal).length,
    "every cursor has the same length",
  );
  assert.equal(decodeListCursor(encodeListCursor(0, binding, seal), binding, seal), 0);
});

test("another account, purpose or query value is another list: its cursors are refused", () => {
  const cursor = encodeListCursor(1234, binding, seal);
  for (const other of [
    cursorBinding("keys", 8, { sort: "name", order: "asc", nameContains: "pay" }),
    cursorBinding("audit", 7, { sort: "name", order: "asc", nameContains: "pay" }),
    cursorBinding("keys", 7, { sort: "name", order: "desc", nameContains: "pay" }),
    cursorBinding("keys", 7, { sort: "name", order: "asc", nameContains: "pay", enabled: "true" }),
    cursorBinding("keys", 7, { sort: "name", order: "asc" }),
    // A value moved to another field is another query.
    cursorBinding("keys", 7, { sort: "name", order: "asc", name: "pay" }),
  ]) {
    assert.equal(decodeListCursor(cursor, other, seal), null, other);
  }
});

test("a cursor made under another data key (another service's) is refused", () => {
  const cursor = encodeListCursor(1234, binding, createSecretBox(randomBytes(32)));
  assert.equal(decodeListCursor(cursor, binding, seal), null);
});

test("every one-character change, earlier cursor formats and junk are refused", () => {
  const cursor = encodeListCursor(1234, binding, seal);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  for (let at = 0; at < cursor.length; at++) {
    for (const next of alphabet) {
      if (next === cursor[at]) continue;
      const changed = `${cursor.slice(0, at)}${next}${cursor.slice(at + 1)}`;
      assert.equal(decodeListCursor(changed, binding, seal), null, changed);
    }
  }
  for (const earlier of ["k1.1234", `k2.1234.${"0".repeat(32)}`]) {
    assert.equal(decodeListCursor(Buffer.from(earlier).toString("base64url"), binding, seal), null);
  }
  for (const junk of ["", "c", "a".repeat(129), `c${"A".repeat(200)}`, "not a cursor", `${cursor}=`]) {
    assert.equal(decodeListCursor(junk, binding, seal), null, junk);
  }
});
