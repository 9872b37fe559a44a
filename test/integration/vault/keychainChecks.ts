/**
 * Runs the vault against whatever Secret Service this process can reach and prints one JSON
 * line of what it saw; keychain.test.ts runs it inside and outside a D-Bus session and asserts.
 *   node keychainChecks.ts full   round trip, new instance, missing delete, openCredentialVault
 *   node keychainChecks.ts open   openCredentialVault only
 * The values stored are random test values, never real secrets.
 */
import { randomBytes } from "node:crypto";
import { KeytarVault } from "../../../electron/vault/keytarVault.ts";
import { openCredentialVault } from "../../../electron/vault/openCredentialVault.ts";

const mode = process.argv[2] ?? "full";
const fresh = (label: string) => `test/${label}/${randomBytes(6).toString("hex")}`;

async function openResult() {
  const started = performance.now();
  const vault = await openCredentialVault({ probeTimeoutMs: 3000 });
  return {
    kind: vault.kind,
    unavailableReason: vault.unavailableReason ?? null,
    ms: Math.round(performance.now() - started),
  };
}

async function full() {
  const vault = await KeytarVault.open();
  const account = fresh("round-trip");
  const value = randomBytes(12).toString("base64");
  await vault.set(account, value);
  const readBack = await vault.get(account);
  const deleted = await vault.delete(account);
  const afterDelete = await vault.get(account);

  const kept = fresh("kept");
  const keptValue = `kept-${randomBytes(6).toString("hex")}`;
  await vault.set(kept, keptValue);
  const readByNewInstance = await (await KeytarVault.open()).get(kept);
  await vault.delete(kept);

  const missing = fresh("missing");
  return {
    roundTrip: { value, readBack, deleted, afterDelete },
    newInstance: { value: keptValue, readBack: readByNewInstance },
    missing: { get: await vault.get(missing), deleted: await vault.delete(missing) },
    open: await openResult(),
  };
}

try {
  const result = mode === "full" ? await full() : { open: await openResult() };
  process.stdout.write(`${JSON.stringify({ pid: process.pid, ...result })}\n`);
  // A keychain call that never answers keeps a libuv worker busy; do not wait for it.
  process.exit(0);
} catch (error) {
  process.stdout.write(
    `${JSON.stringify({ error: error instanceof Error ? error.message : String(error) })}\n`,
  );
  process.exit(1);
}
