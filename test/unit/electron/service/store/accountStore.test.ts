import assert from "node:assert/strict";
import { test } from "node:test";
import { addStoredAccount, tempDataDir } from "../../../../harness/tempDataDir.ts";

test("an account manages itself and its sub-accounts at any depth, never its parent or a stranger", async (t) => {
  const data = await tempDataDir(t);
  const root = addStoredAccount(data, "root");
  const child = addStoredAccount(data, "child", root.id);
  const grandchild = addStoredAccount(data, "grandchild", child.id);
  const stranger = addStoredAccount(data, "stranger");
  assert.ok(data.accounts.manages(root.id, root.id));
  assert.ok(data.accounts.manages(root.id, child.id));
  assert.ok(data.accounts.manages(root.id, grandchild.id));
  assert.ok(data.accounts.manages(child.id, grandchild.id));
  assert.ok(!data.accounts.manages(child.id, root.id));
  assert.ok(!data.accounts.manages(stranger.id, child.id));
  assert.ok(!data.accounts.manages(root.id, stranger.id));
});
