import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startKeydeskCore } from "../../../../../electron/main/core.ts";
import type { KeydeskCore } from "../../../../../electron/main/corePorts.ts";
import { MemoryClipboard } from "../../../../../electron/main/memoryClipboard.ts";
import { SessionVault } from "../../../../../electron/vault/sessionVault.ts";
import { formatApiDateTime } from "../../../../../shared/datetime.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";
import { allKeys, ok } from "../../dispatchAssertions.ts";

/** The keys handlers through dispatch, against the real embedded service (Local profile). */

let dataDir: string;
let core: KeydeskCore;

before(async () => {
  dataDir = await makeTempDir("keydesk-core-keys-");
  core = await startKeydeskCore({
    dataDir,
    vault: new SessionVault("no keychain in this test"),
    clipboard: new MemoryClipboard(),
    defaultServicePort: 0,
  });
});
after(async () => {
  await core?.close();
  await removeDir(dataDir);
});

test("keys.createTfa in a sub-account makes a TFA key there (as New key does), named as asked", async () => {
  const sub = await ok(core, "accounts.addSubAccount", { username: "team-c", password: "team-c-secret" });
  const made = await ok(core, "keys.createTfa", { accountKey: sub.accountKey, name: "team-c 2FA" });
  assert.equal(made.accountKey, sub.accountKey);
  assert.deepEqual(made.permissions, ["TFA"]);
  assert.equal(made.name, "team-c 2FA");
  assert.match(made.publicApiKey, /^[0-9a-f-]{20,}$/);
  assert.deepEqual(
    (await allKeys(core, { accountKey: sub.accountKey })).map((key) => key.name),
    ["team-c 2FA"],
  );
  assert.deepEqual(await allKeys(core), [], "nothing in the profile's own account");
  // Without a name it gets the service's kind of default.
  const unnamed = await ok(core, "keys.createTfa", { accountKey: sub.accountKey });
  assert.match(unnamed.name, /^TFA key \d{4}-\d{2}-\d{2}T/);
});

test("keys.page and keys.count narrow by state at the time of the call", async () => {
  const now = Date.now();
  await ok(core, "keys.create", { request: { name: "live" } });
  await ok(core, "keys.create", { request: { name: "gone", validTo: formatApiDateTime(now - 1000) } });
  await ok(core, "keys.create", {
    request: { name: "soon", validTo: formatApiDateTime(now + 24 * 3600_000) },
  });
  const names = async (state: "enabled" | "expired" | "expiring-soon") =>
    (await allKeys(core, { query: { state } })).map((key) => key.name);
  assert.deepEqual(await names("enabled"), ["live", "soon"]);
  assert.deepEqual(await names("expired"), ["gone"]);
  assert.deepEqual(await names("expiring-soon"), ["soon"]);
  assert.deepEqual(await ok(core, "keys.count", { query: { state: "expired" } }), { count: 1 });
});
