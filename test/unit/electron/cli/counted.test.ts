import assert from "node:assert/strict";
import { test } from "node:test";
import { counted } from "../../../../electron/cli/counted.ts";

test("one is singular; none and many are plural", () => {
  assert.equal(counted(1, "account"), "1 account");
  assert.equal(counted(0, "key"), "0 keys");
  assert.equal(counted(2, "key"), "2 keys");
  assert.equal(counted(1000, "account"), "1000 accounts");
});
