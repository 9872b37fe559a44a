import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startKeydeskCore } from "../../../../../electron/main/core.ts";
import type { KeydeskCore } from "../../../../../electron/main/corePorts.ts";
import { SessionVault } from "../../../../../electron/vault/sessionVault.ts";
import { formatApiDateTime } from "../../../../../shared/datetime.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";
import { MemoryClipboard } from "../../../../harness/memoryClipboard.ts";
import { allKeys, fails, ok } from "../../dispatchAssertions.ts";

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

test("keys.findByFragment finds keys by a piece of their key id or publicApiKey, any case, across pages; never a secret to the renderer", async () => {
  const sub = await ok(core, "accounts.addSubAccount", { username: "team-f", password: "team-f-secret" });
  const made = [];
  // More than one service page (1,000 keys): the piece is looked for past the first.
  for (let first = 0; first < 1_050; first += 50) {
    made.push(
      ...(await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          ok(core, "keys.create", { accountKey: sub.accountKey, request: { name: `f-${first + index}` } }),
        ),
      )),
    );
  }
  const last = made.at(-1);
  assert.ok(last);
  const find = (fragment: string) =>
    ok(core, "keys.findByFragment", { accountKey: sub.accountKey, fragment });

  const byPublic = await find(last.publicApiKey.slice(3, 19).toUpperCase());
  assert.deepEqual(
    byPublic.matches.map((match) => [match.key.key, match.foundBy]),
    [[last.key, "publicApiKey"]],
  );
  assert.equal(byPublic.complete, true);
  assert.equal(byPublic.searched, 1_050);
  assert.equal("publicApiKey" in (byPublic.matches[0]?.key ?? {}), false, "a view, with the hint only");
  // With what the table shows of every key: usage and creation time, not "not reported".
  assert.equal(byPublic.matches[0]?.key.usage?.lastUsedAt, null);
  assert.match(String(byPublic.matches[0]?.key.createdAt), /^\d{4}-\d\d-\d\dT/);
  // So do a key just created and one looked up by its whole publicApiKey.
  assert.equal(last.usage?.total.allowed, 0);
  assert.match(String(last.createdAt), /^\d{4}-\d\d-\d\dT/);
  const looked = await ok(core, "keys.lookup", {
    accountKey: sub.accountKey,
    publicApiKey: last.publicApiKey,
  });
  assert.equal(looked?.usage?.lastUsedAt, null);

  const byId = await find(last.key.slice(0, 12).toLowerCase());
  assert.deepEqual(
    byId.matches.map((match) => [match.key.name, match.foundBy]),
    [[last.name, "keyId"]],
  );
  assert.deepEqual((await find("0000000000000000")).matches, []);
  // A piece too short, or with what no key id or publicApiKey holds, is refused, not searched.
  for (const fragment of ["abc12", "abc 1234", "abc%1234"]) {
    assert.equal(
      (await fails(core, "keys.findByFragment", { accountKey: sub.accountKey, fragment })).messageId,
      "INVALID_ARGUMENT",
    );
  }
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
