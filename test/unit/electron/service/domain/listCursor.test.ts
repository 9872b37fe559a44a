import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { createSecretBox } from "../../../../../electron/service/crypto/secretBox.ts";
import {
  cursorBinding,
  decodeListCursor,
  encodeListCursor,
} from "../../../../../electron/service/domain/listCursor.ts";

/** A list's paging cursor names a row of the list it came from, and of no other list. */

const box = createSecretBox(randomBytes(32));
const tag = (message: string) => box.cursorTag(message);
const binding = cursorBinding("keys", 7, { sort: "name", order: "asc", nameContains: "pay" });

test("a cursor gives back its row for the list it came from, whatever the order its query was written in", () => {
  const cursor = encodeListCursor(1234, binding, tag);
  assert.match(cursor, /^[A-Za-z0-9_-]+$/);
  const same = cursorBinding("keys", 7, {
    nameContains: "pay",
    order: "asc",
    sort: "name",
    state: undefined,
  });
  assert.equal(same, binding);
  assert.equal(decodeListCursor(cursor, same, tag), 1234);
});

test("another account, purpose or query value is another list: its cursors are refused", () => {
  const cursor = encodeListCursor(1234, binding, tag);
  for (const other of [
    cursorBinding("keys", 8, { sort: "name", order: "asc", nameContains: "pay" }),
    cursorBinding("audit", 7, { sort: "name", order: "asc", nameContains: "pay" }),
    cursorBinding("keys", 7, { sort: "name", order: "desc", nameContains: "pay" }),
    cursorBinding("keys", 7, { sort: "name", order: "asc", nameContains: "pay", enabled: "true" }),
    cursorBinding("keys", 7, { sort: "name", order: "asc" }),
    // A value moved to another field is another query.
    cursorBinding("keys", 7, { sort: "name", order: "asc", name: "pay" }),
  ]) {
    assert.equal(decodeListCursor(cursor, other, tag), null, other);
  }
});

test("a cursor made under another data key (another service's) is refused", () => {
  const elsewhere = createSecretBox(randomBytes(32));
  const cursor = encodeListCursor(1234, binding, (message) => elsewhere.cursorTag(message));
  assert.equal(decodeListCursor(cursor, binding, tag), null);
});

test("every one-character change, another row id under the same tag, and k1 cursors are refused", () => {
  const cursor = encodeListCursor(1234, binding, tag);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  for (let at = 0; at < cursor.length; at++) {
    for (const next of alphabet) {
      if (next === cursor[at]) continue;
      const changed = `${cursor.slice(0, at)}${next}${cursor.slice(at + 1)}`;
      assert.equal(decodeListCursor(changed, binding, tag), null, changed);
    }
  }
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const moved = Buffer.from(text.replace("1234", "1235"), "utf8").toString("base64url");
  assert.equal(decodeListCursor(moved, binding, tag), null);
  assert.equal(decodeListCursor(Buffer.from("k1.1234").toString("base64url"), binding, tag), null);
  for (const junk of ["", "k2", "a".repeat(129), "not a cursor", `${cursor}=`]) {
    assert.equal(decodeListCursor(junk, binding, tag), null, junk);
  }
});
