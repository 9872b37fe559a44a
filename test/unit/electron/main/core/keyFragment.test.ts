import assert from "node:assert/strict";
import { test } from "node:test";
import { fragmentMatcher } from "../../../../../electron/main/core/keyFragment.ts";

const key = {
  key: "46CE99DD937D058FFFBE1ED6048E473C",
  publicApiKey: "863f15e6573dbdc0279aaa4a8a7bde8a-5acc9ccf",
};

test("a piece of the key id is found in any case, before the publicApiKey is looked at", () => {
  assert.equal(fragmentMatcher("937d058f")(key), "keyId");
  assert.equal(fragmentMatcher("46CE99")(key), "keyId");
});

test("a piece of the publicApiKey is found in any case, dashes included; anything else is not", () => {
  assert.equal(fragmentMatcher("A8A7BDE8A-5ACC")(key), "publicApiKey");
  assert.equal(fragmentMatcher("863f15e6")(key), "publicApiKey");
  assert.equal(fragmentMatcher("863f15e7")(key), null);
});
