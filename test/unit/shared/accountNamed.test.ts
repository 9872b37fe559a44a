import assert from "node:assert/strict";
import { test } from "node:test";
import { namedAccount } from "../../../shared/accountNamed.ts";

const own = { accountKey: "A".repeat(32), parentAccountKey: null };
const sub = { accountKey: "B".repeat(32), parentAccountKey: "A".repeat(32) };

test("`_` names the credentials' own account, the one without a parent; an accountKey names its account", () => {
  assert.equal([sub, own].find(namedAccount("_")), own);
  assert.equal([own, sub].find(namedAccount("B".repeat(32))), sub);
  assert.equal([own, sub].find(namedAccount("C".repeat(32))), undefined);
});
