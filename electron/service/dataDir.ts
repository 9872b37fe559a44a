import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { DataKeyError, decodeDataKey, loadOrCreateKeyFile } from "./crypto/dataKey.ts";
import { createSecretBox, type SecretBox } from "./crypto/secretBox.ts";
import { type ClaimMode, claimDataDir, DATABASE_FILE, type DataDirClaim } from "./dataDirClaim.ts";
import type { KeyWriteJournal } from "./domain/keyWriteJournal.ts";
import type { ServiceStorage } from "./serviceStorage.ts";
import { AccountStore } from "./store/accountStore.ts";
import { ApiKeyStore } from "./store/apiKeyStore.ts";
import { AuditStore } from "./store/auditStore.ts";
import { type Db, openDatabase, readMeta, writeMeta } from "./store/database.ts";
import { sqliteFailure } from "./store/databaseHealth.ts";
import { ExternalChanges } from "./store/externalChanges.ts";
import { GroupCommit } from "./store/groupCommit.ts";
import { KEY_CHECK, opensAny } from "./store/sealedColumns.ts";
import { inThreadLister } from "./store/sqliteKeyLister.ts";
import { firstSealedValue, upgradeSealedValues } from "./store/sqliteReseal.ts";
import { SqliteStore } from "./store/sqliteStore.ts";
import type { Store } from "./store/store.ts";
import { workerLister } from "./workerLister.ts";

export { DATABASE_FILE } from "./dataDirClaim.ts";
export const DATA_KEY_FILE = "data.key";
export { KEY_CHECK } from "./store/sealedColumns.ts";

export interface DataDirOptions {
  dataDir: string;
  /** The data key itself (the desktop app takes it from the OS keychain). */
  dataKey?: Buffer;
  /** Base64 data key from the environment (KEY_SERVICE_DATA_KEY); used when no dataKey is given. */
  dataKeyBase64?: string;
  /** Files up to this many MiB get SQLite's quick check when opened (see databaseHealth.ts). */
  startCheckMaxMb?: number;
  /**
   * How this process claims the dir while it is open (dataDirClaim.ts): `shared` by default, as a
   * service; `alone` for a command that moves all of its data (it refuses while a service runs).
   */
  claim?: ClaimMode;
}

export interface DataDir extends ServiceStorage {
  /**
   * What the service keeps, behind the async store interface (store/README.md). Callers not yet
   * converted (2FA, the key lists, tests and benches that set rows up) still use the synchronous
   * stores below.
   */
  readonly store: Store;
  readonly db: Db;
  /** The database file (a reader of its own, such as the key list worker, opens it too). */
  readonly databaseFile: string;
  /** The data key, for a reader of its own (the key list worker); never written anywhere by the service. */
  readonly dataKey: Buffer;
  readonly box: SecretBox;
  readonly accounts: AccountStore;
  readonly apiKeys: ApiKeyStore;
  /** Writes answered to clients go through here: one durable commit per group of concurrent writes. */
  readonly writes: GroupCommit;
  /** Whether another process wrote the database: in-memory caches check it. */
  readonly externalChanges: ExternalChanges;
  /** Told of every key the API creates or updates, inside the write's own transaction (the sync outbox). */
  readonly keyJournals: Set<KeyWriteJournal>;
  close(): void;
}

/** Where the data key comes from; `mayCreate`: a data.key may be made (the database holds no secret). */
function chooseDataKey(
  options: DataDirOptions,
  keyPath: string,
  mayCreate: boolean,
): { dataKey: Buffer; origin: string } {
  if (options.dataKey) return { dataKey: options.dataKey, origin: "the data key given by the application" };
  if (options.dataKeyBase64 !== undefined)
    return {
      dataKey: decodeDataKey(options.dataKeyBase64, "KEY_SERVICE_DATA_KEY"),
      origin: "KEY_SERVICE_DATA_KEY",
    };
  return { dataKey: loadOrCreateKeyFile(keyPath, mayCreate), origin: `the data key file ${keyPath}` };
}

/**
 * The data key of a database as it is, before any migration touches it: checked against the value
 * stored at its first start; a database holding sealed values without that record (altered) is
 * opened only with a key that opens one of them, and never gets a new key.
 */
function checkedDataKey(db: Db, options: DataDirOptions, keyPath: string) {
  const storedCheck = readMeta(db, KEY_CHECK);
  const sample = storedCheck === undefined ? firstSealedValue(db) : undefined;
  const { dataKey, origin } = chooseDataKey(
    options,
    keyPath,
    storedCheck === undefined && sample === undefined,
  );
  const box = createSecretBox(dataKey);
  if (storedCheck !== undefined && storedCheck !== box.checkValue) {
    throw new DataKeyError(
      `${origin} is not the data key this database was created with; ` +
        "use the original key (its publicApiKey values cannot be read with another one)",
    );
  }
  if (sample !== undefined && !opensAny(box, dataKey, sample)) {
    throw new DataKeyError(
      `the database holds sealed values but no record of its data key (meta ${KEY_CHECK} is missing: it was ` +
        `altered), and ${origin} does not open them; use the original key or restore a backup`,
    );
  }
  return { dataKey, box, recordCheck: storedCheck === undefined };
}

/** Opens the service's data directory: database, data key (checked against the database), stores. */
export function openDataDir(options: DataDirOptions): DataDir {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const claim = claimDataDir(options.dataDir, options.claim ?? "shared");
  try {
    return openClaimedDataDir(options, claim);
  } catch (error) {
    claim.release();
    throw error;
  }
}

function openClaimedDataDir(options: DataDirOptions, claim: DataDirClaim): DataDir {
  const databaseFile = join(options.dataDir, DATABASE_FILE);
  const keyPath = join(options.dataDir, DATA_KEY_FILE);
  let keyed: ReturnType<typeof checkedDataKey> | undefined;
  const db = openDatabase(databaseFile, {
    ...(options.startCheckMaxMb !== undefined && { startCheckMaxMb: options.startCheckMaxMb }),
    // Before the schema is upgraded: a wrong key leaves an older database as it was.
    beforeMigrating: (raw) => {
      keyed = checkedDataKey(raw, options, keyPath);
    },
  });
  try {
    const { dataKey, box, recordCheck } = keyed as NonNullable<typeof keyed>;
    if (recordCheck) writeMeta(db, KEY_CHECK, box.checkValue);
    // Values an earlier Keydesk sealed with AES-256-GCM, once (the schema upgrade kept a copy).
    upgradeSealedValues(db, dataKey, box);
    const parts = {
      db,
      box,
      accounts: new AccountStore(db),
      apiKeys: new ApiKeyStore(db, box),
      audit: new AuditStore(db),
      writes: new GroupCommit(db),
      externalChanges: new ExternalChanges(db),
    };
    return {
      ...parts,
      store: new SqliteStore(parts),
      databaseFile,
      dataKey,
      keyJournals: new Set(),
      keyLister: (worker) =>
        worker ? workerLister(worker, { databaseFile, dataKey }) : inThreadLister(parts.apiKeys),
      failure: (error) => sqliteFailure(error, databaseFile),
      close: () => {
        db.close();
        claim.release();
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}
