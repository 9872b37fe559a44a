import assert from "node:assert/strict";
import { test } from "node:test";
import { SessionVault } from "../../../../electron/vault/sessionVault.ts";

const REASON = "no Secret Service is running (install and unlock gnome-keyring)";

test("a session vault says it is session-only and why", () => {
  const vault = new SessionVault(REASON);
  assert.equal(vault.kind, "session-only");
  assert.equal(vault.unavailableReason, REASON);
});

test("a session vault returns what was set, per account, and null for unknown accounts", async () => {
  const vault = new SessionVault(REASON);
  await vault.set("profile/a/password", "secret-a");
  await vault.set("profile/b/password", "secret-b");
  assert.equal(await vault.get("profile/a/password"), "secret-a");
  assert.equal(await vault.get("profile/b/password"), "secret-b");
  assert.equal(await vault.get("profile/c/password"), null);
});

test("setting an account again replaces its secret", async () => {
  const vault = new SessionVault(REASON);
  await vault.set("local-service/data-key", "first");
  await vault.set("local-service/data-key", "second");
  assert.equal(await vault.get("local-service/data-key"), "second");
});

test("delete answers true once for a stored entry, then false, and the entry is gone", async () => {
  const vault = new SessionVault(REASON);
  await vault.set("profile/a/password", "secret-a");
  assert.equal(await vault.delete("profile/a/password"), true);
  assert.equal(await vault.get("profile/a/password"), null);
  assert.equal(await vault.delete("profile/a/password"), false);
});

test("two session vaults do not share secrets (memory dies with the vault)", async () => {
  const first = new SessionVault(REASON);
  await first.set("profile/a/password", "secret-a");
  assert.equal(await new SessionVault(REASON).get("profile/a/password"), null);
});

test("the reason a session vault carries does not reveal stored secrets", async () => {
  const vault = new SessionVault(REASON);
  await vault.set("profile/a/password", "s3cr3t-value");
  assert.doesNotMatch(JSON.stringify(vault) + String(vault.unavailableReason), /s3cr3t-value/);
});
