import assert from "node:assert/strict";
import { test } from "node:test";
import { accountLabel, actingOnText } from "../../../../../renderer/src/features/accounts/actingOn.ts";
import type { AccountDto } from "../../../../../shared/bridge.ts";

const OWNER = "A".repeat(32);
const SUB = "B".repeat(32);
const ACCOUNTS: AccountDto[] = [
  { accountKey: OWNER, username: "owner", parentAccountKey: null },
  { accountKey: SUB, username: "qa", parentAccountKey: OWNER },
];

test("an account is named by its username and kind; `_` is the own account", () => {
  assert.equal(accountLabel("_", ACCOUNTS), "owner (own account)");
  assert.equal(accountLabel(OWNER, ACCOUNTS), "owner (own account)");
  assert.equal(accountLabel(SUB, ACCOUNTS), "qa (sub-account)");
  // Before the accounts are known: still something true.
  assert.equal(accountLabel("_", undefined), "own account");
  assert.equal(accountLabel(SUB, undefined), `account ${SUB}`);
});

test("where an action acts names the profile and the account", () => {
  assert.equal(
    actingOnText("team", "team-admin (own account)"),
    "profile “team”, account team-admin (own account)",
  );
});
