import { randomBytes } from "node:crypto";
import { type CredentialVault, VAULT_SERVICE } from "./credentialVault.ts";
import { type KeytarModule, KeytarVault, loadKeytar } from "./keytarVault.ts";
import { SessionVault } from "./sessionVault.ts";

/** The keychain entry the probe writes and removes again. */
const PROBE_ACCOUNT = "keydesk/keychain-probe";
const DEFAULT_PROBE_TIMEOUT_MS = 5000;

export interface OpenCredentialVaultOptions {
  /** How long the probe may take before the keychain counts as unavailable (a locked keyring can wait forever on a prompt). */
  probeTimeoutMs?: number;
  /** Keychain service name; VAULT_SERVICE unless told otherwise. */
  service?: string;
}

/**
 * The OS keychain when a real round trip (set, get, delete of a probe entry) works within the
 * timeout; otherwise memory for this session, with the reason in plain language.
 */
export async function openCredentialVault(
  options: OpenCredentialVaultOptions = {},
): Promise<CredentialVault> {
  const timeoutMs = options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const service = options.service ?? VAULT_SERVICE;
  let keytar: KeytarModule;
  try {
    keytar = await loadKeytar();
  } catch (error) {
    return new SessionVault(
      `the OS keychain library (keytar) could not be loaded${process.platform === "linux" ? " (is libsecret installed?)" : ""}: ${messageOf(error)}`,
    );
  }
  const vault = new KeytarVault(keytar, service);
  try {
    await withTimeout(probe(vault), timeoutMs);
    return vault;
  } catch (error) {
    return new SessionVault(reasonFor(error, timeoutMs));
  }
}

async function probe(vault: KeytarVault): Promise<void> {
  const value = randomBytes(16).toString("hex");
  await vault.set(PROBE_ACCOUNT, value);
  const read = await vault.get(PROBE_ACCOUNT);
  await vault.delete(PROBE_ACCOUNT);
  if (read !== value) throw new ProbeMismatch();
}

class ProbeMismatch extends Error {}
class ProbeTimeout extends Error {}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProbeTimeout()), ms);
    timer.unref();
  });
  // A probe that answers after the timeout must not become an unhandled rejection.
  work.catch(() => {});
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Plain-language reason for a failed probe; keytar's messages carry no secrets. */
function reasonFor(error: unknown, timeoutMs: number): string {
  if (error instanceof ProbeTimeout) {
    return `the OS keychain did not answer within ${Math.round(timeoutMs / 1000)} s (it may be locked: unlock it, e.g. gnome-keyring, and restart Keydesk)`;
  }
  if (error instanceof ProbeMismatch) return "the OS keychain did not give back what Keydesk stored in it";
  const message = messageOf(error);
  if (process.platform === "linux") {
    if (
      /DBUS_SESSION_BUS_ADDRESS|autolaunch D-Bus|Failed to connect to socket|Could not connect/i.test(message)
    ) {
      return `no D-Bus session is running, so no Secret Service can be reached (start Keydesk from a desktop session, or under dbus-run-session with gnome-keyring unlocked): ${message}`;
    }
    if (/org\.freedesktop\.secrets|ServiceUnknown|not provided by any \.service files/i.test(message)) {
      return `no Secret Service is running (install and unlock gnome-keyring): ${message}`;
    }
    if (/collection|locked|prompt|dismissed/i.test(message)) {
      return `the Secret Service keyring is locked or missing (unlock gnome-keyring, e.g. by logging in to the desktop): ${message}`;
    }
  }
  return `the OS keychain refused access: ${message}`;
}
