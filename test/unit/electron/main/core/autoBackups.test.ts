import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { AutoBackups, autoBackupName, DAY_MS } from "../../../../../electron/main/core/autoBackups.ts";
import { ProfileStore } from "../../../../../electron/main/core/profileStore.ts";
import { type CredentialVault, vaultAccounts } from "../../../../../electron/vault/credentialVault.ts";
import { SessionVault } from "../../../../../electron/vault/sessionVault.ts";
import { makeTempDir, removeDir } from "../../../../harness/keyServiceProcess.ts";
import { memoryKeychain } from "../../../../harness/memoryKeychain.ts";

/**
 * The automatic backups' schedule on an injected clock: one at once when there is none, none
 * again within a day, one more a day later, the newest seven kept; never without a keychain.
 */

let dir: string;
before(async () => {
  dir = await makeTempDir("keydesk-auto-backups-");
});
after(() => removeDir(dir));

const START = Date.parse("2026-11-25T08:00:00Z");

function schedule(appDir: string, vault: CredentialVault) {
  let now = START;
  const made: { out: string; passphrase: string }[] = [];
  const auto = new AutoBackups({
    folder: `${appDir}/backups`,
    vault,
    store: new ProfileStore(appDir),
    backup: async (out, passphrase) => {
      made.push({ out, passphrase });
      writeFileSync(out, "sealed");
    },
    now: () => now,
  });
  return { auto, made, advance: (ms: number) => (now += ms) };
}

test("names sort by time and say when", () => {
  assert.equal(autoBackupName(START), "keydesk-auto-20261125T080000Z.kdbackup");
});

test("daily on the injected clock, the newest seven kept, passphrase from the keychain", async () => {
  const { auto, made, advance } = schedule(`${dir}/a`, memoryKeychain());
  await auto.check();
  assert.equal(made.length, 0, "off until switched on");
  await auto.configure({ enabled: true, passphrase: "a long passphrase" });
  assert.equal(made.length, 1, "the first one at once");
  assert.equal(made[0]?.passphrase, "a long passphrase");
  advance(DAY_MS - 1000);
  await auto.check();
  assert.equal(made.length, 1, "not again within a day");
  advance(1000);
  await auto.check();
  assert.equal(made.length, 2, "a day after the last one");
  for (let day = 0; day < 8; day += 1) {
    advance(DAY_MS);
    await auto.check();
  }
  const listed = auto.list();
  assert.equal(listed.length, 7);
  assert.equal(readdirSync(auto.folder).length, 7);
  assert.equal(listed[0]?.createdAt, new Date(START + 9 * DAY_MS).toISOString(), "newest first");
  assert.equal(auto.status().lastError, undefined);
});

test("a passphrase gone from the keychain is a failure in words, until switched on again", async () => {
  const vault = memoryKeychain();
  const { auto, made, advance } = schedule(`${dir}/b`, vault);
  await auto.configure({ enabled: true, passphrase: "a long passphrase" });
  await vault.delete(vaultAccounts.autoBackupPassphrase);
  advance(DAY_MS);
  await auto.check();
  assert.equal(made.length, 1);
  assert.match(auto.status().lastError ?? "", /passphrase is no longer in the OS keychain/);
});

test("without a keychain: not available, and why", async () => {
  const { auto } = schedule(`${dir}/c`, new SessionVault("no Secret Service on the bus"));
  const status = auto.status();
  assert.equal(status.available, false);
  assert.match(status.unavailableReason ?? "", /no Secret Service on the bus/);
  await assert.rejects(auto.configure({ enabled: true, passphrase: "a long passphrase" }), /OS keychain/);
});
