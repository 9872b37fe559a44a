import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { AccountDto } from "../../../shared/bridge.ts";
import { AccountAdminError, addAccount, changePassword } from "../../service/accountAdmin.ts";
import { DataKeyError, decodeDataKey, readKeyFile } from "../../service/crypto/dataKey.ts";
import { createPrivateFile, fileExists, readPrivateFile } from "../../service/crypto/privateFile.ts";
import { DATA_KEY_FILE, type DataDir, openDataDir } from "../../service/dataDir.ts";
import { passwordProblem, usernameProblem } from "../../service/domain/accountRules.ts";
import type { KeyServiceApp } from "../../service/http/app.ts";
import { type RunningKeyService, startKeyService } from "../../service/server.ts";
import { attachSync } from "../../sync/attachSync.ts";
import { type CredentialVault, vaultAccounts } from "../../vault/credentialVault.ts";
import { CoreFailure } from "./coreFailure.ts";

/**
 * The key service embedded in the desktop app: its data under `<dataDir>/service`, its data key
 * in the CredentialVault (32 random bytes made on first run), listening on 127.0.0.1 at the
 * remembered port, or on any free port when that one is taken. The account `owner` is the
 * local profile's account; its generated password lives in the vault.
 */

export const OWNER_USERNAME = "owner";
export const DEFAULT_SERVICE_PORT = 8787;
/** Without a keychain, the owner's password file in the service's data folder. */
export const OWNER_PASSWORD_FILE = "owner.password";
const HOST = "127.0.0.1";

export interface EmbeddedService {
  readonly url: string;
  readonly port: number;
  /** The port tried first was taken, so the service listens on another one. */
  readonly portChanged: boolean;
  /** The port tried first, when it was taken (`portRemembered` says whether it was remembered). */
  readonly takenPort: { port: number; remembered: boolean } | null;
  readonly dataDir: string;
  /** The data key from the keychain (base64), or undefined when `data.key` in dataDir holds it. */
  readonly dataKeyBase64: string | undefined;
  /** Adds a sub-account of `owner`. */
  addSubAccount(username: string, password: string): Promise<AccountDto>;
  /**
   * Stops the service, runs `work` (which may replace the data directory), then starts it again
   * on the same port with the owner set up as at start, whether `work` succeeded or not. When the
   * service does not start on what a successful `work` left, `undo` puts the previous data back
   * and the service starts on it; the call then fails saying so.
   */
  whileStopped<T>(work: () => Promise<T>, undo?: () => Promise<void>): Promise<T>;
  close(): Promise<void>;
}

export interface EmbeddedServiceOptions {
  /** The app's data folder; the service's data go to `<appDataDir>/service`. */
  appDataDir: string;
  vault: CredentialVault;
  /** The port to try first. */
  port: number;
  /** Whether that port is the one remembered from an earlier start (not the default). */
  portRemembered?: boolean;
  /** The vault account holding the owner's password. */
  ownerPasswordAccount: string;
}

/** A generated password of 32 URL-safe characters. */
const generatePassword = () => randomBytes(24).toString("base64url");

/**
 * The data key from the OS keychain. Without one (a session-only vault) the key must outlive
 * the session, so it stays in the service's own `data.key` file (mode 0600), as headless. When
 * the keychain comes later, it adopts that file's key: a new key could not read the database.
 */
async function dataKeyOf(vault: CredentialVault, serviceDir: string): Promise<Buffer | undefined> {
  if (vault.kind === "session-only") return undefined;
  const stored = await vault.get(vaultAccounts.localDataKey);
  if (stored !== null) return decodeDataKey(stored, "the local service's data key in the keychain");
  const keyFile = join(serviceDir, DATA_KEY_FILE);
  const key = fileExists(keyFile) ? readKeyFile(keyFile) : randomBytes(32);
  await moveIntoVault(vault, vaultAccounts.localDataKey, key.toString("base64"), keyFile);
  return key;
}

/**
 * The owner's password, and whether it was made just now. Without a keychain it is kept in
 * `owner.password` (mode 0600) beside `data.key`, so apps under test configured with it keep
 * working after a restart; a keychain that comes later takes it over.
 */
async function ownerPasswordOf(
  vault: CredentialVault,
  account: string,
  serviceDir: string,
): Promise<{ password: string; generated: boolean }> {
  const file = join(serviceDir, OWNER_PASSWORD_FILE);
  const fromFile = () =>
    readPrivateFile(file, (problem) => new Error(`the Local owner's password file ${problem}`));
  if (vault.kind === "session-only") {
    let generated = false;
    let password: string;
    if (fileExists(file)) {
      password = fromFile();
    } else {
      password = generatePassword();
      generated = createPrivateFile(file, password);
      if (!generated) password = fromFile();
    }
    await vault.set(account, password);
    return { password, generated };
  }
  const stored = await vault.get(account);
  if (stored !== null) return { password: stored, generated: false };
  if (fileExists(file)) {
    const password = fromFile();
    await moveIntoVault(vault, account, password, file);
    return { password, generated: false };
  }
  const password = generatePassword();
  await vault.set(account, password);
  return { password, generated: true };
}

/** Stores the secret in the keychain and, once the keychain gives it back, removes its file. */
async function moveIntoVault(vault: CredentialVault, account: string, secret: string, file: string) {
  await vault.set(account, secret);
  if ((await vault.get(account)) !== secret) {
    throw new Error(`the OS keychain did not give back the secret Keydesk stored from ${file}; it was kept`);
  }
  rmSync(file, { force: true });
}

/** The desktop app sets up its own service's owner: recorded as the owner, through the desktop. */
const DESKTOP_ORIGIN = { actor: OWNER_USERNAME, channel: "desktop" } as const;

/**
 * Makes sure `owner` exists with the password ownerPasswordOf keeps (creating either as needed).
 * `replaced`: the database was just replaced (a restore), so its owner has the password of the
 * machine the backup came from; it takes this machine's.
 */
async function ensureOwner(
  data: DataDir,
  vault: CredentialVault,
  account: string,
  serviceDir: string,
  replaced = false,
) {
  const { password, generated } = await ownerPasswordOf(vault, account, serviceDir);
  const owner = await data.store.accounts.byUsername(OWNER_USERNAME);
  if (!owner) await addAccount(data.store, { username: OWNER_USERNAME, password }, DESKTOP_ORIGIN);
  else if (generated || replaced) await changePassword(data.store, OWNER_USERNAME, password, DESKTOP_ORIGIN);
}

export async function startEmbeddedService(options: EmbeddedServiceOptions): Promise<EmbeddedService> {
  const dataDir = join(options.appDataDir, "service");
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const dataKey = await dataKeyOf(options.vault, dataDir);
  let data: DataDir;
  try {
    data = openDataDir({ dataDir, ...(dataKey && { dataKey }) });
  } catch (error) {
    if (error instanceof DataKeyError && !dataKey) {
      throw new DataKeyError(
        `the local service's data key is kept in the OS keychain, which is not available now ` +
          `(${options.vault.unavailableReason ?? "unknown reason"}); unlock the keychain and start Keydesk again`,
      );
    }
    throw error;
  }
  try {
    await ensureOwner(data, options.vault, options.ownerPasswordAccount, dataDir);
  } finally {
    data.close();
  }
  const serveOptions = {
    dataDir,
    ...(dataKey && { dataKey }),
    host: HOST,
    logLevel: "warn",
    // The open above ran SQLite's quick check on this file a moment ago: once per start is enough.
    startCheckMaxMb: 0,
    extensions: [(service: KeyServiceApp) => void attachSync(service)],
  };
  let running: RunningKeyService;
  let portChanged = false;
  try {
    running = await startKeyService({ ...serveOptions, port: options.port });
  } catch (error) {
    if ((error as { code?: string }).code !== "EADDRINUSE" || options.port === 0) throw error;
    running = await startKeyService({ ...serveOptions, port: 0 });
    portChanged = true;
  }

  return {
    get url() {
      return running.url;
    },
    get port() {
      return running.port;
    },
    portChanged,
    takenPort: portChanged ? { port: options.port, remembered: options.portRemembered ?? false } : null,
    dataDir,
    dataKeyBase64: dataKey?.toString("base64"),
    async whileStopped(work, undo) {
      const port = running.port;
      const restart = async (replaced: boolean) => {
        const data = openDataDir({ dataDir, ...(dataKey && { dataKey }) });
        try {
          await ensureOwner(data, options.vault, options.ownerPasswordAccount, dataDir, replaced);
        } finally {
          data.close();
        }
        // The same port: the profiles and the PIN stream keep their address.
        running = await startKeyService({ ...serveOptions, port });
      };
      await running.close();
      let result: Awaited<ReturnType<typeof work>>;
      try {
        result = await work();
      } catch (error) {
        await restart(false);
        throw error;
      }
      try {
        await restart(true);
      } catch (error) {
        if (!undo) throw error;
        await undo();
        await restart(false);
        throw new Error(
          `the service did not start on the new data (${(error as Error).message}); the previous data is back in place`,
        );
      }
      return result;
    },
    async addSubAccount(username, password) {
      const problem = usernameProblem(username);
      if (problem) throw new CoreFailure("BAD_REQUEST", problem, { username: [problem] });
      const passwordIssue = passwordProblem(password);
      if (passwordIssue) throw new CoreFailure("BAD_REQUEST", passwordIssue, { password: [passwordIssue] });
      // A second connection to the same database, as the CLI does from another process.
      const admin = openDataDir({ dataDir, ...(dataKey && { dataKey }) });
      try {
        const owner = await admin.store.accounts.byUsername(OWNER_USERNAME);
        const account = await addAccount(
          admin.store,
          { username, password, parentUsername: OWNER_USERNAME },
          { actor: OWNER_USERNAME, channel: "desktop" },
        );
        return {
          accountKey: account.accountKey,
          username: account.username,
          parentAccountKey: owner?.accountKey ?? null,
        };
      } catch (error) {
        if (error instanceof AccountAdminError) {
          const exists = /already exists/.test(error.message);
          throw new CoreFailure(exists ? "CONFLICT" : "BAD_REQUEST", error.message, {
            username: [error.message],
          });
        }
        throw error;
      } finally {
        admin.close();
      }
    },
    close: () => running.close(),
  };
}
